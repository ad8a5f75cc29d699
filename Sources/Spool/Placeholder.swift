// Spool module placeholder until the core lands.
