// SPDX-License-Identifier: GPL-2.0
/*
 * Trace events of the TAS virtual DRM driver, called from its Rust code.
 */

#define CREATE_TRACE_POINTS
#define CREATE_RUST_TRACE_POINTS
#include "tas_trace.h"
