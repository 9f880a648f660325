/* collect.c -- the sampling configuration shared by every collector.
 *
 * `memheat run` writes it to MEMHEAT_* environment variables; the collector in
 * the profiled process reads it back. Launch and block selection live here so
 * the CUDA and OpenCL back ends sample exactly alike (include/memheat/collect.h). */
#include "memheat/collect.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/hash.h"

void mh_collect_cfg_init(mh_collect_cfg *cfg) {
    memset(cfg, 0, sizeof *cfg);
    cfg->nblocks = 1;
    cfg->warp_size = 32;
    cfg->launch_policy = MH_LAUNCH_CONFIG;
    cfg->launch_every = 1;
    cfg->configs_per_kernel = MH_COLLECT_CONFIGS_PER_KERNEL;
}

static int parse_u64(const char *s, uint64_t *out) {
    if (!s || !*s || *s == '-') return 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end) return 0;
    *out = v;
    return 1;
}

int mh_collect_parse_block(const char *s, mh_dim3 *out, int *is3d, mh_err *err) {
    uint64_t v[3] = {0, 0, 0};
    int n = 0;
    const char *p = s;
    char part[32];
    while (p && *p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (n == 3 || len == 0 || len >= sizeof part) goto bad;
        memcpy(part, p, len);
        part[len] = '\0';
        if (!parse_u64(part, &v[n]) || v[n] > UINT32_MAX) goto bad;
        n++;
        p = comma ? comma + 1 : NULL;
        if (comma && !*p) goto bad;
    }
    if (n != 1 && n != 3) goto bad;
    *out = (mh_dim3){(uint32_t)v[0], (uint32_t)v[1], (uint32_t)v[2]};
    if (is3d) *is3d = n == 3;
    return MH_OK;
bad:
    return mh_err_set(err, MH_ERR_ARG, "bad block '%s': expected a number or x,y,z", s ? s : "");
}

int mh_collect_cfg_finish(mh_collect_cfg *cfg, mh_err *err) {
    if (cfg->have_regex) {
        regfree(&cfg->regex);
        cfg->have_regex = 0;
    }
    if (cfg->warp_size == 0 || cfg->warp_size > 1024)
        return mh_err_set(err, MH_ERR_ARG, "warp size %u out of range 1..1024", cfg->warp_size);
    if (cfg->nblocks == 0 || cfg->nblocks > MH_COLLECT_MAX_BLOCKS)
        return mh_err_set(err, MH_ERR_ARG, "--blocks %u out of range 1..%u", cfg->nblocks, MH_COLLECT_MAX_BLOCKS);
    if (cfg->kernel_regex[0]) {
        int rc = regcomp(&cfg->regex, cfg->kernel_regex, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char msg[128];
            regerror(rc, &cfg->regex, msg, sizeof msg);
            return mh_err_set(err, MH_ERR_ARG, "bad --kernel regex '%s': %s", cfg->kernel_regex, msg);
        }
        cfg->have_regex = 1;
    }
    return MH_OK;
}

void mh_collect_cfg_free(mh_collect_cfg *cfg) {
    if (cfg->have_regex) regfree(&cfg->regex);
    cfg->have_regex = 0;
}

int mh_collect_cfg_to_env(const mh_collect_cfg *cfg, mh_err *err) {
    char v[64];
    int rc = 0;
    /* absolute: a child that changes directory (mpirun -wdir, srun --chdir) still writes beside the others */
    char abs[2200];
    const char *tp = cfg->trace_path;
    char cwd[1024];
    if (tp[0] && tp[0] != '/' && getcwd(cwd, sizeof cwd) &&
        (size_t)snprintf(abs, sizeof abs, "%s/%s", cwd, tp) < sizeof abs)
        tp = abs;
    rc |= setenv("MEMHEAT_TRACE", tp, 1);
    if (cfg->block_3d)
        snprintf(v, sizeof v, "%u,%u,%u", cfg->block.x, cfg->block.y, cfg->block.z);
    else
        snprintf(v, sizeof v, "%u", cfg->block.x);
    rc |= setenv("MEMHEAT_BLOCK", v, 1);
    snprintf(v, sizeof v, "%u", cfg->nblocks);
    rc |= setenv("MEMHEAT_BLOCKS", v, 1);
    rc |= setenv("MEMHEAT_ALL_BLOCKS", cfg->all_blocks ? "1" : "0", 1);
    rc |= setenv("MEMHEAT_KERNEL", cfg->kernel_regex, 1);
    snprintf(v, sizeof v, "%" PRIu64, cfg->launch_skip);
    rc |= setenv("MEMHEAT_LAUNCH_SKIP", v, 1);
    snprintf(v, sizeof v, "%" PRIu64, cfg->launch_count);
    rc |= setenv("MEMHEAT_LAUNCH_COUNT", v, 1);
    char pol[32];
    rc |= setenv("MEMHEAT_LAUNCH_POLICY", mh_collect_policy_text(cfg, pol, sizeof pol), 1);
    snprintf(v, sizeof v, "%u", cfg->warp_size);
    rc |= setenv("MEMHEAT_WARP_SIZE", v, 1);
    snprintf(v, sizeof v, "%" PRIu64, cfg->buffer_bytes);
    rc |= setenv("MEMHEAT_BUFFER_BYTES", v, 1);
    rc |= setenv("MEMHEAT_TRACE_COLLECTIVES", cfg->trace_collectives ? "1" : "0", 1);
    if (rc) return mh_err_set(err, MH_ERR_INTERNAL, "cannot set the collector's environment: %s", strerror(errno));
    return MH_OK;
}

static int env_u64(const char *name, uint64_t *out, uint64_t max, mh_err *err) {
    const char *s = getenv(name);
    if (!s || !*s) return MH_OK;
    uint64_t v;
    if (!parse_u64(s, &v) || v > max) return mh_err_set(err, MH_ERR_ARG, "%s='%s' is not a valid number", name, s);
    *out = v;
    return MH_OK;
}

int mh_collect_cfg_from_env(mh_collect_cfg *cfg, mh_err *err) {
    mh_collect_cfg_init(cfg);
    const char *s = getenv("MEMHEAT_TRACE");
    snprintf(cfg->trace_path, sizeof cfg->trace_path, "%s", s && *s ? s : "memheat.mht");
    if ((s = getenv("MEMHEAT_BLOCK")) && *s && mh_collect_parse_block(s, &cfg->block, &cfg->block_3d, err) != MH_OK)
        return MH_ERR_ARG;
    uint64_t v = cfg->nblocks, all = 0, ws = cfg->warp_size, coll = 0;
    if (env_u64("MEMHEAT_BLOCKS", &v, MH_COLLECT_MAX_BLOCKS, err) ||
        env_u64("MEMHEAT_ALL_BLOCKS", &all, 1, err) ||
        env_u64("MEMHEAT_LAUNCH_SKIP", &cfg->launch_skip, UINT64_MAX, err) ||
        env_u64("MEMHEAT_LAUNCH_COUNT", &cfg->launch_count, UINT64_MAX, err) ||
        env_u64("MEMHEAT_WARP_SIZE", &ws, 1024, err) ||
        env_u64("MEMHEAT_BUFFER_BYTES", &cfg->buffer_bytes, UINT64_MAX, err) ||
        env_u64("MEMHEAT_TRACE_COLLECTIVES", &coll, 1, err))
        return MH_ERR_ARG;
    cfg->trace_collectives = (int)coll;
    cfg->nblocks = (uint32_t)v;
    cfg->all_blocks = (int)all;
    cfg->warp_size = (uint32_t)ws;
    if ((s = getenv("MEMHEAT_KERNEL"))) snprintf(cfg->kernel_regex, sizeof cfg->kernel_regex, "%s", s);
    if ((s = getenv("MEMHEAT_LAUNCH_POLICY")) && *s && mh_collect_parse_policy(s, cfg, err) != MH_OK)
        return MH_ERR_ARG;
    return mh_collect_cfg_finish(cfg, err);
}

int mh_collect_parse_policy(const char *s, mh_collect_cfg *cfg, mh_err *err) {
    uint64_t n;
    if (!strcmp(s, "config")) {
        cfg->launch_policy = MH_LAUNCH_CONFIG;
        cfg->configs_per_kernel = MH_COLLECT_CONFIGS_PER_KERNEL;
    } else if (!strncmp(s, "config:", 7) && parse_u64(s + 7, &n) && n <= UINT32_MAX) {
        cfg->launch_policy = MH_LAUNCH_CONFIG;
        cfg->configs_per_kernel = n;
    } else if (!strcmp(s, "shape")) {
        cfg->launch_policy = MH_LAUNCH_SHAPE;
        cfg->configs_per_kernel = MH_COLLECT_CONFIGS_PER_KERNEL;
    } else if (!strncmp(s, "shape:", 6) && parse_u64(s + 6, &n) && n <= UINT32_MAX) {
        cfg->launch_policy = MH_LAUNCH_SHAPE;
        cfg->configs_per_kernel = n;
    } else if (!strcmp(s, "all")) {
        cfg->launch_policy = MH_LAUNCH_ALL;
    } else if (!strncmp(s, "every:", 6) && parse_u64(s + 6, &n) && n >= 1) {
        cfg->launch_policy = MH_LAUNCH_EVERY;
        cfg->launch_every = n;
    } else {
        return mh_err_set(err, MH_ERR_ARG, "bad launch policy '%s': expected config, config:N (N >= 0), shape, shape:N, all or every:N (N >= 1)", s);
    }
    return MH_OK;
}

const char *mh_collect_policy_text(const mh_collect_cfg *cfg, char *buf, size_t cap) {
    switch (cfg->launch_policy) {
    case MH_LAUNCH_ALL: snprintf(buf, cap, "all"); break;
    case MH_LAUNCH_EVERY: snprintf(buf, cap, "every:%" PRIu64, cfg->launch_every); break;
    default: {
        const char *word = cfg->launch_policy == MH_LAUNCH_SHAPE ? "shape" : "config";
        if (cfg->configs_per_kernel == MH_COLLECT_CONFIGS_PER_KERNEL) snprintf(buf, cap, "%s", word);
        else snprintf(buf, cap, "%s:%" PRIu64, word, cfg->configs_per_kernel);
    }
        break;
    }
    return buf;
}

/* ---- configurations: an open-addressing table keyed by a hash of the
 * mangled name, grid, block and dynamic shared memory ---- */

static uint64_t config_hash(const mh_collect_launch *l) {
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (const unsigned char *p = (const unsigned char *)(l->name ? l->name : ""); *p; p++) h = (h ^ *p) * 0x100000001B3ull;
    uint32_t v[7] = {l->grid.x, l->grid.y, l->grid.z, l->block.x, l->block.y, l->block.z, l->dyn_smem};
    for (int i = 0; i < 7; i++) h = mh_mix64(h ^ v[i]);
    return h;
}

static int config_same(const mh_collect_config *c, uint64_t h, const mh_collect_launch *l) {
    return c->hash == h && c->grid.x == l->grid.x && c->grid.y == l->grid.y && c->grid.z == l->grid.z &&
           c->block.x == l->block.x && c->block.y == l->block.y && c->block.z == l->block.z &&
           c->dyn_smem == l->dyn_smem && !strcmp(c->name, l->name ? l->name : "");
}

static mh_collect_config *config_slot(mh_collect_config *tab, size_t cap, uint64_t h, const mh_collect_launch *l) {
    size_t i = (size_t)h & (cap - 1);
    while (tab[i].name && !config_same(&tab[i], h, l)) i = (i + 1) & (cap - 1);
    return &tab[i];
}

/* The configuration of l, added with zero counts if new; NULL when out of memory. */
static mh_collect_config *config_get(mh_collect_state *st, const mh_collect_launch *l) {
    uint64_t h = config_hash(l);
    if ((st->nconfigs + 1) * 2 > st->capconfigs) {
        size_t cap = st->capconfigs ? st->capconfigs * 2 : 64;
        mh_collect_config *tab = calloc(cap, sizeof *tab);
        if (!tab) return NULL;
        for (size_t i = 0; i < st->capconfigs; i++)
            if (st->configs[i].name) {
                const mh_collect_config *o = &st->configs[i];
                mh_collect_launch k = {o->name, NULL, o->grid, o->block, o->dyn_smem};
                *config_slot(tab, cap, o->hash, &k) = *o;
            }
        free(st->configs);
        st->configs = tab;
        st->capconfigs = cap;
    }
    mh_collect_config *c = config_slot(st->configs, st->capconfigs, h, l);
    if (!c->name) {
        char *name = strdup(l->name ? l->name : "");
        if (!name) return NULL;
        *c = (mh_collect_config){.hash = h, .name = name, .grid = l->grid, .block = l->block, .dyn_smem = l->dyn_smem};
        st->nconfigs++;
    }
    return c;
}

void mh_collect_state_free(mh_collect_state *st) {
    for (size_t i = 0; i < st->capconfigs; i++) free(st->configs[i].name);
    free(st->configs);
    memset(st, 0, sizeof *st);
}

/* How many configurations of the kernel `name` have a traced launch. Called
 * once per new configuration, so a scan of the table is cheap enough. */
static uint64_t traced_configs_of(const mh_collect_state *st, const char *name) {
    uint64_t n = 0;
    for (size_t i = 0; i < st->capconfigs; i++)
        if (st->configs[i].name && st->configs[i].traced && !strcmp(st->configs[i].name, name)) n++;
    return n;
}

/* 1 when another configuration of c's kernel with c's block and dynamic
 * shared memory (another grid only) has a traced launch. */
static int traced_shape_of(const mh_collect_state *st, const mh_collect_config *c) {
    for (size_t i = 0; i < st->capconfigs; i++) {
        const mh_collect_config *o = &st->configs[i];
        if (o->name && o->traced && o != c && o->block.x == c->block.x && o->block.y == c->block.y &&
            o->block.z == c->block.z && o->dyn_smem == c->dyn_smem && !strcmp(o->name, c->name))
            return 1;
    }
    return 0;
}

int mh_collect_more_possible(const mh_collect_cfg *cfg, const mh_collect_state *st) {
    return !(cfg->launch_count && st->traced >= cfg->launch_count);
}

int mh_collect_is_collective(const char *name) {
    return name && (strstr(name, "ncclKernel") || strstr(name, "ncclDevKernel"));
}

int mh_collect_want_launch(const mh_collect_cfg *cfg, mh_collect_state *st, const mh_collect_launch *l) {
    st->launches++;
    mh_collect_config *c = config_get(st, l);
    if (c) c->launches++;
    else st->oom = 1;
    if (!cfg->trace_collectives && mh_collect_is_collective(l->name)) return 0;
    if (cfg->have_regex) {
        int hit = l->name && regexec(&cfg->regex, l->name, 0, NULL, 0) == 0;
        if (!hit && l->display) hit = regexec(&cfg->regex, l->display, 0, NULL, 0) == 0;
        if (!hit) return 0;
    }
    uint64_t k = st->matched++;
    if (k < cfg->launch_skip) return 0;
    if (!mh_collect_more_possible(cfg, st)) return 0;
    switch (cfg->launch_policy) {
    case MH_LAUNCH_CONFIG:
    case MH_LAUNCH_SHAPE:
        /* Unknown configuration (table full): traced, so nothing is missed. */
        if (c && (c->traced || c->over_cap)) return 0;
        if (c && cfg->launch_policy == MH_LAUNCH_SHAPE && traced_shape_of(st, c)) {
            c->over_cap = 1;
            return 0;
        }
        if (c && cfg->configs_per_kernel &&
            traced_configs_of(st, c->name) >= cfg->configs_per_kernel) {
            c->over_cap = 1; /* decided once per configuration */
            return 0;
        }
        break;
    case MH_LAUNCH_EVERY:
        if ((k - cfg->launch_skip) % cfg->launch_every) return 0;
        break;
    default:
        break;
    }
    if (c) c->traced++;
    st->traced++;
    return 1;
}

void mh_collect_count_launch(mh_collect_state *st, const mh_collect_launch *l) {
    st->launches++;
    mh_collect_config *c = config_get(st, l);
    if (c) c->launches++;
    else st->oom = 1;
}

void mh_collect_unselect(const mh_collect_cfg *cfg, mh_collect_state *st, const mh_collect_launch *l) {
    (void)cfg;
    if (st->traced) st->traced--;
    if (!st->capconfigs) return;
    mh_collect_config *c = config_slot(st->configs, st->capconfigs, config_hash(l), l);
    if (c->name && c->traced) c->traced--;
}

uint32_t mh_collect_first_block(const mh_collect_cfg *cfg, mh_dim3 grid) {
    mh_dim3 b = cfg->block;
    /* "x" alone is a linear id; x,y,z is clamped into the grid. */
    if (!cfg->block_3d) {
        uint64_t n = (uint64_t)grid.x * grid.y * grid.z;
        return n == 0 ? 0 : (uint32_t)(b.x < n ? b.x : n - 1);
    }
    uint32_t x = b.x < grid.x ? b.x : grid.x - 1;
    uint32_t y = b.y < grid.y ? b.y : grid.y - 1;
    uint32_t z = b.z < grid.z ? b.z : grid.z - 1;
    return x + grid.x * (y + grid.y * z);
}

int mh_collect_block_sampled(const mh_collect_cfg *cfg, mh_dim3 grid, uint32_t b) {
    if (cfg->all_blocks) return 1;
    uint32_t first = mh_collect_first_block(cfg, grid);
    return b >= first && (uint64_t)b < (uint64_t)first + cfg->nblocks &&
           (uint64_t)b < (uint64_t)grid.x * grid.y * grid.z;
}

uint32_t mh_collect_sampled_list(const mh_collect_cfg *cfg, mh_dim3 grid, uint32_t *ids, uint32_t cap) {
    if (cfg->all_blocks) return MH_TRACE_ALL_BLOCKS;
    uint64_t total = (uint64_t)grid.x * grid.y * grid.z;
    uint32_t first = mh_collect_first_block(cfg, grid), n = 0;
    for (uint64_t b = first; b < total && n < cfg->nblocks && n < cap; b++) ids[n++] = (uint32_t)b;
    return n;
}

/* ---- the process record and the trace of this process ---- */

static int32_t env_rank(const char *name) {
    const char *s = getenv(name);
    if (!s || !*s) return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < 0 || v > INT32_MAX) return -1;
    return (int32_t)v;
}

void mh_collect_process_get(mh_process *p, mh_collect_procbuf *buf) {
    memset(p, 0, sizeof *p);
    p->pid = (uint64_t)getpid();
    p->ppid = (uint64_t)getppid();
    if (gethostname(buf->host, sizeof buf->host) != 0) snprintf(buf->host, sizeof buf->host, "localhost");
    buf->host[sizeof buf->host - 1] = '\0';
    buf->command[0] = '\0';
    FILE *f = fopen("/proc/self/cmdline", "rb");
    if (f) {
        size_t n = fread(buf->command, 1, sizeof buf->command - 1, f);
        fclose(f);
        buf->command[n] = '\0';
        while (n > 0 && buf->command[n - 1] == '\0') n--;
        for (size_t i = 0; i < n; i++)
            if (buf->command[i] == '\0') buf->command[i] = ' ';
    }
    p->host = buf->host;
    p->command = buf->command;
    p->rank = env_rank("RANK");
    p->local_rank = env_rank("LOCAL_RANK");
    p->world_size = env_rank("WORLD_SIZE");
    p->ompi_rank = env_rank("OMPI_COMM_WORLD_RANK");
    p->pmi_rank = env_rank("PMI_RANK");
    p->slurm_procid = env_rank("SLURM_PROCID");
}

int mh_collect_trace_open(mh_trace_writer **w, const char *path, const mh_trace_header *h,
                          const mh_trace_writer_opts *opts, const char *const *devices, uint32_t ndevices, char *got,
                          size_t gotcap, mh_err *err) {
    *w = NULL;
    char mine[4200];
    int rc = mh_collect_claim(path, mine, sizeof mine, err);
    if (rc) return rc;
    if (got && (size_t)snprintf(got, gotcap, "%s", mine) >= gotcap)
        return mh_err_set(err, MH_ERR_ARG, "trace path too long: %s", mine);
    rc = mh_trace_create(w, mine, h, opts, err);
    if (rc) return rc;
    mh_process p;
    mh_collect_procbuf buf;
    mh_collect_process_get(&p, &buf);
    p.devices = devices;
    p.n_devices = devices ? ndevices : 0;
    rc = mh_trace_write_process(*w, &p, err);
    if (!rc) rc = mh_trace_flush(*w, err);
    if (rc) {
        mh_trace_abandon(*w);
        *w = NULL;
    }
    return rc;
}
