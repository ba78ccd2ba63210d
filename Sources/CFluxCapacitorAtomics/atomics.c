#include "CFluxCapacitorAtomics.h"

atomic_bool cflux_scopes_used_flag = false;
