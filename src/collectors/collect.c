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

void mh_collect_cfg_init(mh_collect_cfg *cfg) {
    memset(cfg, 0, sizeof *cfg);
    cfg->nblocks = 1;
    cfg->warp_size = 32;
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
    rc |= setenv("MEMHEAT_TRACE", cfg->trace_path, 1);
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
    snprintf(v, sizeof v, "%u", cfg->warp_size);
    rc |= setenv("MEMHEAT_WARP_SIZE", v, 1);
    snprintf(v, sizeof v, "%" PRIu64, cfg->buffer_bytes);
    rc |= setenv("MEMHEAT_BUFFER_BYTES", v, 1);
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
    uint64_t v = cfg->nblocks, all = 0, ws = cfg->warp_size;
    if (env_u64("MEMHEAT_BLOCKS", &v, MH_COLLECT_MAX_BLOCKS, err) ||
        env_u64("MEMHEAT_ALL_BLOCKS", &all, 1, err) ||
        env_u64("MEMHEAT_LAUNCH_SKIP", &cfg->launch_skip, UINT64_MAX, err) ||
        env_u64("MEMHEAT_LAUNCH_COUNT", &cfg->launch_count, UINT64_MAX, err) ||
        env_u64("MEMHEAT_WARP_SIZE", &ws, 1024, err) ||
        env_u64("MEMHEAT_BUFFER_BYTES", &cfg->buffer_bytes, UINT64_MAX, err))
        return MH_ERR_ARG;
    cfg->nblocks = (uint32_t)v;
    cfg->all_blocks = (int)all;
    cfg->warp_size = (uint32_t)ws;
    if ((s = getenv("MEMHEAT_KERNEL"))) snprintf(cfg->kernel_regex, sizeof cfg->kernel_regex, "%s", s);
    return mh_collect_cfg_finish(cfg, err);
}

int mh_collect_want_launch(const mh_collect_cfg *cfg, mh_collect_state *st, const char *name, const char *display) {
    if (cfg->have_regex) {
        int hit = name && regexec(&cfg->regex, name, 0, NULL, 0) == 0;
        if (!hit && display) hit = regexec(&cfg->regex, display, 0, NULL, 0) == 0;
        if (!hit) return 0;
    }
    uint64_t k = st->matched++;
    if (k < cfg->launch_skip) return 0;
    if (cfg->launch_count && st->traced >= cfg->launch_count) return 0;
    st->traced++;
    return 1;
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
