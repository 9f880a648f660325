/* ocl_sites_lib.c -- a library that leaves an NVTX range open, as NCCL does
 * with `ncclCommInitRankConfig` (pushed in its "NCCL" domain, never popped):
 * sites_lib_open() pushes "lib_init" in the domain "LIB" and returns. A
 * launch made outside this library afterwards must not be named as under
 * it (memheat: a named domain's range counts at a launch only while the
 * object that pushed it is on the stack). Built with NVTX only. */
#include <nvtx3/nvToolsExt.h>

void sites_lib_open(void);

void sites_lib_open(void) {
    nvtxEventAttributes_t a = {.version = NVTX_VERSION, .size = NVTX_EVENT_ATTRIB_STRUCT_SIZE,
                               .messageType = NVTX_MESSAGE_TYPE_ASCII, .message.ascii = "lib_init"};
    nvtxDomainRangePushEx(nvtxDomainCreateA("LIB"), &a);
}
