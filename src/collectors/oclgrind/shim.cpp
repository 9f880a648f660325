// shim.cpp -- the Oclgrind plugin: Oclgrind's C++ callbacks -> plain C calls
// into ocl_sink.c (prefix mh_ocl_), which owns every decision.
//
// Built with -fno-rtti (Oclgrind's library and Debian's LLVM 14 have none),
// linked with -loclgrind and LLVM 14, loaded with `oclgrind --plugins LIB`.
// What stays here is what needs Oclgrind's or LLVM's C++ types: reading work-
// group and work-item ids, splitting Oclgrind addresses into (buffer, offset),
// kernel argument and variable names, and instruction debug locations.
// isThreadSafe() is true: Oclgrind then runs work-groups on several worker
// threads, and ocl_sink.c keeps one buffer per running work-group.
#include <oclgrind/Context.h>
#include <oclgrind/Kernel.h>
#include <oclgrind/KernelInvocation.h>
#include <oclgrind/Memory.h>
#include <oclgrind/Plugin.h>
#include <oclgrind/WorkGroup.h>
#include <oclgrind/WorkItem.h>

#include <llvm/IR/Argument.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/DebugLoc.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "ocl_sink.h"

namespace {

// OpenCL address-space numbers used by Oclgrind's SPIR (see oclgrind/common.h)
// and the kernel-argument address qualifiers of cl.h.
const unsigned kAsConstant = oclgrind::AddrSpaceConstant;
const unsigned kAsLocal = oclgrind::AddrSpaceLocal;

unsigned to_space(unsigned oclgrind_as) {
    switch (oclgrind_as) {
    case oclgrind::AddrSpacePrivate: return MH_SPACE_LOCAL;
    case oclgrind::AddrSpaceLocal: return MH_SPACE_SHARED;
    case oclgrind::AddrSpaceConstant: return MH_SPACE_CONSTANT;
    default: return MH_SPACE_GLOBAL;
    }
}

// "kernel.var" (how clang names a kernel's __local array) -> "var"
std::string local_label(const std::string &kernel, llvm::StringRef name) {
    std::string s = name.str();
    if (s.size() > kernel.size() + 1 && s.compare(0, kernel.size(), kernel) == 0 && s[kernel.size()] == '.')
        return s.substr(kernel.size() + 1);
    return s;
}

class MemheatPlugin : public oclgrind::Plugin {
public:
    MemheatPlugin(const oclgrind::Context *context, mh_ocl *o) : oclgrind::Plugin(context), o_(o) {}

    bool isThreadSafe() const override { return true; }

    void memoryAllocated(const oclgrind::Memory *m, size_t address, size_t size, cl_mem_flags, const uint8_t *) override {
        if (m->getAddressSpace() == oclgrind::AddrSpaceGlobal) mh_ocl_buffer_alloc(o_, address, size);
    }
    void memoryDeallocated(const oclgrind::Memory *m, size_t address) override {
        if (m->getAddressSpace() == oclgrind::AddrSpaceGlobal) mh_ocl_buffer_free(o_, address);
    }

    void kernelBegin(const oclgrind::KernelInvocation *ki) override {
        kernel_ = ki->getKernel();
        name_ = kernel_->getName();
        oclgrind::Size3 g = ki->getNumGroups(), l = ki->getLocalSize();
        local_ = l;
        mh_ocl_kernel k;
        k.name = name_.c_str();
        k.groups = mh_dim3{(uint32_t)g.x, (uint32_t)g.y, (uint32_t)g.z};
        k.local = mh_dim3{(uint32_t)l.x, (uint32_t)l.y, (uint32_t)l.z};
        k.local_bytes = (uint32_t)kernel_->getLocalMemorySize();
        traced_ = mh_ocl_kernel_begin(o_, &k) != 0;
        // no site queued: the enqueue came from an object loaded after the hook went in
        if (mh_ocl_kernel_site(o_) == MH_SITE_NONE) mh_ocl_hook_rescan();
        if (!traced_) return;
        label_buffers();
        describe_pcs();
        mh_ocl_kernel_ready(o_);
    }

    void kernelEnd(const oclgrind::KernelInvocation *) override {
        mh_ocl_kernel_end(o_);
        traced_ = false;
        kernel_ = nullptr;
    }

    void workGroupBegin(const oclgrind::WorkGroup *wg) override {
        if (!traced_) return;
        if (mh_ocl_local_needed(o_)) {
            report_local_layout(wg);
            mh_ocl_local_done(o_);
        }
        oclgrind::Size3 id = wg->getGroupID(), sz = wg->getGroupSize();
        mh_ocl_group_begin(o_, wg, mh_dim3{(uint32_t)id.x, (uint32_t)id.y, (uint32_t)id.z},
                           (uint32_t)(sz.x * sz.y * sz.z));
    }
    void workGroupComplete(const oclgrind::WorkGroup *wg) override {
        if (traced_) mh_ocl_group_end(o_, wg);
    }

    void memoryLoad(const oclgrind::Memory *m, const oclgrind::WorkItem *wi, size_t a, size_t n) override {
        record(m, wi, a, n, MH_KIND_LOAD);
    }
    void memoryStore(const oclgrind::Memory *m, const oclgrind::WorkItem *wi, size_t a, size_t n,
                     const uint8_t *) override {
        record(m, wi, a, n, MH_KIND_STORE);
    }
    // Oclgrind reports every atomic as a load, and a store only when it wrote
    // (a failed compare-exchange does not): one atomic access = the load.
    void memoryAtomicLoad(const oclgrind::Memory *m, const oclgrind::WorkItem *wi, oclgrind::AtomicOp, size_t a,
                          size_t n) override {
        record(m, wi, a, n, MH_KIND_ATOMIC);
    }
    // Work-group-wide copies (async_work_group_copy) have no work-item: they
    // are attributed to work-item 0 of the group.
    void memoryLoad(const oclgrind::Memory *m, const oclgrind::WorkGroup *wg, size_t a, size_t n) override {
        record_group(m, wg, a, n, MH_KIND_LOAD);
    }
    void memoryStore(const oclgrind::Memory *m, const oclgrind::WorkGroup *wg, size_t a, size_t n,
                     const uint8_t *) override {
        record_group(m, wg, a, n, MH_KIND_STORE);
    }

private:
    mh_ocl *o_;
    const oclgrind::Kernel *kernel_ = nullptr;
    std::string name_;
    oclgrind::Size3 local_;
    bool traced_ = false;

    void record(const oclgrind::Memory *m, const oclgrind::WorkItem *wi, size_t a, size_t n, unsigned kind) {
        if (!traced_) return;
        mh_ocl_group *g = mh_ocl_group_find(o_, wi->getWorkGroup());
        if (!g) return; // work-group not sampled
        unsigned as = m->getAddressSpace();
        unsigned space = to_space(as);
        const llvm::Instruction *in = wi->getCurrentInstruction();
        if (space == MH_SPACE_GLOBAL && in) {
            // __constant data lives in Oclgrind's global memory: the load says which
            if (const llvm::LoadInst *ld = llvm::dyn_cast<llvm::LoadInst>(in))
                if (ld->getPointerAddressSpace() == kAsConstant) space = MH_SPACE_CONSTANT;
        }
        oclgrind::Size3 lid = wi->getLocalID();
        uint32_t item = (uint32_t)(lid.x + local_.x * (lid.y + local_.y * lid.z));
        uint64_t buf = 0, addr = a;
        if (space == MH_SPACE_SHARED || space == MH_SPACE_LOCAL) {
            buf = m->extractBuffer(a);
            addr = m->extractOffset(a);
        }
        mh_ocl_access(o_, g, item, space, kind, buf, addr, (uint32_t)n, (uint64_t)(uintptr_t)in);
    }

    void record_group(const oclgrind::Memory *m, const oclgrind::WorkGroup *wg, size_t a, size_t n, unsigned kind) {
        if (!traced_) return;
        mh_ocl_group *g = mh_ocl_group_find(o_, wg);
        if (!g) return;
        unsigned space = to_space(m->getAddressSpace());
        uint64_t buf = 0, addr = a;
        if (space == MH_SPACE_SHARED || space == MH_SPACE_LOCAL) {
            buf = m->extractBuffer(a);
            addr = m->extractOffset(a);
        }
        mh_ocl_access(o_, g, 0, space, kind, buf, addr, (uint32_t)n, 0);
    }

    // Pointer arguments and program-scope __constant variables name the
    // buffers they point to.
    void label_buffers() {
        for (auto it = kernel_->values_begin(); it != kernel_->values_end(); ++it) {
            const llvm::Value *v = it->first;
            const oclgrind::TypedValue &tv = it->second;
            if (const llvm::Argument *arg = llvm::dyn_cast<llvm::Argument>(v)) {
                unsigned i = arg->getArgNo();
                unsigned q = kernel_->getArgumentAddressQualifier(i);
                if ((q != CL_KERNEL_ARG_ADDRESS_GLOBAL && q != CL_KERNEL_ARG_ADDRESS_CONSTANT) ||
                    tv.size != sizeof(size_t) || !tv.data)
                    continue;
                std::string nm = kernel_->getArgumentName(i).str();
                std::string ty = kernel_->getArgumentTypeName(i).str();
                mh_ocl_kernel_param(o_, i, nm.c_str(), ty.c_str(), tv.getPointer(),
                                    q == CL_KERNEL_ARG_ADDRESS_CONSTANT ? MH_SPACE_CONSTANT : MH_SPACE_GLOBAL);
            } else if (const llvm::GlobalVariable *gv = llvm::dyn_cast<llvm::GlobalVariable>(v)) {
                if (gv->getAddressSpace() != kAsConstant || tv.size != sizeof(size_t) || !tv.data) continue;
                std::string nm = gv->getName().str();
                mh_ocl_kernel_arg(o_, nm.c_str(), tv.getPointer(), MH_SPACE_CONSTANT);
            }
        }
    }

    // Source line of every instruction that may touch memory; pc = the
    // instruction's address, which is what record() reports.
    void describe_pcs() {
        const llvm::Function *f = kernel_->getFunction();
        if (!f || !f->getParent()) return;
        for (const llvm::Function &fn : *f->getParent()) {
            std::string fname = fn.getName().str();
            for (const llvm::BasicBlock &bb : fn) {
                for (const llvm::Instruction &in : bb) {
                    if (!in.mayReadOrWriteMemory()) continue;
                    const llvm::DebugLoc &dl = in.getDebugLoc();
                    if (!dl) continue;
                    std::string file;
                    if (const llvm::DILocation *loc = dl.get()) file = loc->getFilename().str();
                    mh_ocl_pcinfo(o_, (uint64_t)(uintptr_t)&in, fname.c_str(), file.c_str(), dl.getLine());
                }
            }
        }
    }

    // __local arrays of the kernel and __local pointer arguments: their buffer
    // index in the work-group's local memory, size, alignment and name.
    void report_local_layout(const oclgrind::WorkGroup *wg) {
        const oclgrind::Memory *lm = wg->getLocalMemory();
        if (!lm) return;
        for (auto it = kernel_->values_begin(); it != kernel_->values_end(); ++it) {
            const llvm::Value *v = it->first;
            std::string label;
            uint64_t align = 16;
            if (const llvm::GlobalVariable *gv = llvm::dyn_cast<llvm::GlobalVariable>(v)) {
                if (gv->getAddressSpace() != kAsLocal) continue;
                label = local_label(name_, gv->getName());
                if (gv->getAlign()) align = gv->getAlign()->value();
            } else if (const llvm::Argument *arg = llvm::dyn_cast<llvm::Argument>(v)) {
                if (kernel_->getArgumentAddressQualifier(arg->getArgNo()) != CL_KERNEL_ARG_ADDRESS_LOCAL) continue;
                label = kernel_->getArgumentName(arg->getArgNo()).str();
            } else {
                continue;
            }
            size_t addr = wg->getLocalMemoryAddress(v);
            const oclgrind::Memory::Buffer *b = lm->getBuffer(addr);
            mh_ocl_local_var(o_, lm->extractBuffer(addr), b ? b->size : 0, align, label.c_str());
        }
    }
};

// The one process-wide context: Oclgrind's C entry points below get only the
// Context, so the plugin and its sink are found here.
struct {
    MemheatPlugin *plugin;
    mh_ocl *sink;
} g_memheat;

// A program that ends without clReleaseContext (much real code) never gets
// releasePlugins: its trace is finished at exit instead, every launch in a
// complete trace. A killed program still leaves a trace without its end.
void finish_at_exit() {
    if (!g_memheat.sink) return;
    mh_err err = {};
    if (mh_ocl_finish(g_memheat.sink, &err) != MH_OK)
        std::fprintf(stderr, "memheat: oclgrind collector: %s (the trace keeps what was written before)\n", err.msg);
}

} // namespace

extern "C" void initializePlugins(oclgrind::Context *context) {
    mh_err err = {};
    if (mh_ocl_open(&g_memheat.sink, nullptr, &err) != MH_OK) {
        std::fprintf(stderr, "memheat: oclgrind collector disabled: %s\n", err.msg);
        return;
    }
    static bool at_exit;
    if (!at_exit) at_exit = std::atexit(finish_at_exit) == 0;
    g_memheat.plugin = new MemheatPlugin(context, g_memheat.sink);
    context->registerPlugin(g_memheat.plugin);
    mh_ocl_hook_install(g_memheat.sink); // call sites at clEnqueueNDRangeKernel (ocl_enqueue.c)
}

extern "C" void releasePlugins(oclgrind::Context *context) {
    if (g_memheat.plugin) {
        context->unregisterPlugin(g_memheat.plugin);
        delete g_memheat.plugin;
        g_memheat.plugin = nullptr;
    }
    if (g_memheat.sink) {
        mh_ocl_hook_detach();
        mh_err err = {};
        if (mh_ocl_close(g_memheat.sink, &err) != MH_OK)
            std::fprintf(stderr, "memheat: oclgrind collector: %s (the trace keeps what was written before)\n", err.msg);
        g_memheat.sink = nullptr;
    }
}
