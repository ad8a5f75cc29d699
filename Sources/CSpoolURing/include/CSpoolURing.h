int cspool_dummy(void);
