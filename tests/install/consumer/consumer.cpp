// consumer.cpp -- split.h from C++ (tests/install): the public header must
// compile as C++ (-pedantic, warnings as errors) and link through its
// extern "C" declarations.
#include <memheat/split.h>

#include <cstdio>
#include <cstring>

int main() {
    mh_split_opts o;
    mh_split_opts_init(&o);
    mh_split_loop loop;
    std::memset(&loop, 0, sizeof loop);
    mh_err e;
    mh_err_clear(&e);
    int rc = mh_split_run(&loop, &o, nullptr, &e);  // n_iters 0, no kernel: a bad description
    if (rc != MH_ERR_ARG && rc != MH_ERR_DEP) {
        std::fprintf(stderr, "consumer.cpp: empty loop gave %s (%s)\n", mh_status_name(rc), e.msg);
        return 1;
    }
    std::printf("consumer.cpp: ok (%s, %s)\n", mh_split_kind_name(MH_SPLIT_BALANCED), mh_status_name(rc));
    return 0;
}
