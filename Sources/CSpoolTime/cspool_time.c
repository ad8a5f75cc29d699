// CSpoolTime is header-only (its functions are `static inline`, so that Swift inlines them);
// SwiftPM needs one source file to build the target.
#include "CSpoolTime.h"
