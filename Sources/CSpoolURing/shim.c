#include "CSpoolURing.h"
int cspool_dummy(void){return 0;}
