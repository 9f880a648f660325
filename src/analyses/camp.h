/* camp.h -- partition-camping model and performance band (CampProf, seed 000).
 *
 * The model is fitted to micro-benchmark timings (bench/camping/camp_bench):
 * each benchmark runs one full wave of blocks with `warps` active warps per
 * SM, every warp issuing `iters` warp-wide requests of one word size, either
 * spread over memory or camped on a hot spot.  One regression equation per
 * (read|write) x (spread|camped) predicts the benchmark time from the active
 * warps and the word size; dividing by the number of requests gives the time
 * per warp-level request, and a kernel's best/worst lines are its request
 * counts times those costs, over every occupancy.
 *
 * Nothing here touches a GPU: mh_camp_calibrate runs the benchmark binary as
 * a child process and reads back its CSV. */
#ifndef MH_ANALYSES_CAMP_H
#define MH_ANALYSES_CAMP_H

#include <stddef.h>

#include "memheat/err.h"

enum { MH_CAMP_READ = 0, MH_CAMP_WRITE = 1 };
enum { MH_CAMP_SPREAD = 0, MH_CAMP_CAMPED = 1 };

#define MH_CAMP_NWORD 4     /* word sizes 2, 4, 8, 16 bytes (index 0..3) */
#define MH_CAMP_MAXWARPS 128
#define MH_CAMP_MAXCOEF 16

/* Regression forms, all fitted by ordinary least squares (gsl_multifit_linear).
 * b_k = 1 when the word size is k, else 0; w = active warps per SM.
 *   PAPER  t = a1*w + a2*b2 + a3*b4 + a4*b8 + beta          (eq. 1, 16 B = base)
 *   LINEAR t = sum_k b_k * (beta_k + a_k*w)                 (slope per word size)
 *   HINGE  t = sum_k b_k * (beta_k + a_k*w + g_k*max(0, w - knee_k))
 *          knee_k chosen by grid search (flat latency-bound part, then the
 *          bandwidth-bound rise: saturating in warps)
 *   RECIP  per-request time tau = t / (w * sms * iters) fitted as
 *          tau = sum_k b_k * (c_k + d_k / w)   (per-transaction form) */
enum { MH_CAMP_FORM_PAPER = 0, MH_CAMP_FORM_LINEAR, MH_CAMP_FORM_HINGE, MH_CAMP_FORM_RECIP,
       MH_CAMP_NFORM };

typedef struct mh_camp_sample {
    int op, layout, word;  /* word in bytes: 2, 4, 8, 16 */
    int warps;             /* active warps per SM */
    double iters;          /* warp requests per warp */
    double time_ms;        /* median over repetitions */
} mh_camp_sample;

typedef struct mh_camp_data {
    mh_camp_sample *s;
    size_t n, cap;
    char device[256];
    int sms, max_warps;
    long long l2_bytes;
    char camped_layout[2][64]; /* [op]: header keys camped_read / camped_write */
    int mlp;                   /* read requests per warp in flight (header key mlp; 0 = not given) */
} mh_camp_data;

typedef struct mh_camp_eq {
    int form;
    int ncoef;
    double coef[MH_CAMP_MAXCOEF], se[MH_CAMP_MAXCOEF];
    double tstat[MH_CAMP_MAXCOEF], pval[MH_CAMP_MAXCOEF];
    char names[MH_CAMP_MAXCOEF][16];
    double knee[MH_CAMP_NWORD];  /* HINGE only */
    double r2, rmse;             /* on the fitted response (ms; RECIP: ms/request) */
    double cv_err;               /* held-out geometric-mean relative error of t */
    double cv_by_form[MH_CAMP_NFORM];
    int n;                       /* data points fitted */
    double iters;                /* requests per warp in the benchmark */
    int sms;
} mh_camp_eq;

typedef struct mh_camp_model {
    char device[256];
    int sms, max_warps;
    long long l2_bytes;
    char camped_layout[2][64];   /* [op]: what the camped benchmark did */
    int mlp;                     /* read requests per warp in flight in the benchmark (0 = unknown) */
    mh_camp_eq eq[2][2];         /* [op][layout] */
} mh_camp_model;

/* A profiled kernel at one configuration.  req[op][i] = warp-level requests
 * of word size 2<<i bytes (i = 0..3) for the whole launch. */
typedef struct mh_camp_kernel {
    double req[2][MH_CAMP_NWORD];
    int warps;         /* active warps per SM at the measured configuration */
    double time_ms;    /* measured kernel time */
    int max_warps;     /* highest occupancy the kernel allows; 0 = device's */
} mh_camp_kernel;

typedef struct mh_camp_band {
    int n;
    int warps[MH_CAMP_MAXWARPS];
    double best[MH_CAMP_MAXWARPS], worst[MH_CAMP_MAXWARPS], kernel[MH_CAMP_MAXWARPS];
    int w0;            /* measured configuration */
    double t0;         /* measured time (ms) */
    double degree;     /* camping degree in [0, 1] at w0 */
    double degree_raw; /* unclamped (t0 - best) / (worst - best); NAN if band closed */
    int band_closed;   /* worst == best at w0: no contention possible there */
} mh_camp_band;

/* Word size in bytes -> index 0..3, or -1. */
int mh_camp_word_index(int word_bytes);

/* Reads a camp_bench sweep CSV (median over repetitions per configuration);
 * appends to d.  Lines starting with '#' carry the device description. */
int mh_camp_data_load_csv(mh_camp_data *d, const char *path, mh_err *err);
int mh_camp_data_add(mh_camp_data *d, const mh_camp_sample *s, mh_err *err);
void mh_camp_data_free(mh_camp_data *d);

/* Fits one equation of the given form on the samples of (op, layout) whose
 * warps value is not excluded (exclude[w] != 0 skips it; NULL = use all). */
int mh_camp_fit_form(const mh_camp_data *d, int op, int layout, int form,
                     const unsigned char *exclude, mh_camp_eq *eq, mh_err *err);

/* Fits all forms for the four equations, scores each by k-fold held-out
 * error (folds over warp counts) and keeps the best form per equation. */
int mh_camp_fit(const mh_camp_data *d, mh_camp_model *m, mh_err *err);

/* Predicted benchmark time (ms) and time per warp request (ms). */
double mh_camp_eq_predict(const mh_camp_eq *eq, int word_bytes, double warps);
double mh_camp_req_ms(const mh_camp_model *m, int op, int layout, int word_bytes,
                      double warps);
/* Kernel time if all its requests follow the given layout. */
double mh_camp_kernel_ms(const mh_camp_model *m, const mh_camp_kernel *k, int layout,
                         double warps);

/* Best/worst lines over 1..max warps, the kernel's extrapolated line and its
 * camping degree. */
int mh_camp_band_compute(const mh_camp_model *m, const mh_camp_kernel *k, mh_camp_band *b,
                         mh_err *err);
/* Kernel line value at `warps` for a band started at (w0, t0); used by the
 * validation (extrapolate from every configuration). */
double mh_camp_band_at(const mh_camp_band *b, int warps);

/* {"warps":[..],"best":[..],"worst":[..],"kernel":[..],"measured":{..},
 *  "degree":x}; malloc'd, NULL on out-of-memory. */
char *mh_camp_band_json(const mh_camp_band *b);

int mh_camp_model_save(const mh_camp_model *m, const char *path, mh_err *err);
int mh_camp_model_load(mh_camp_model *m, const char *path, mh_err *err);
/* dir/camp-<sanitized device name>.json */
int mh_camp_model_path(const char *dir, const char *device, char *out, size_t n, mh_err *err);

/* Runs `bench_exe --mode sweep --out outdir [extra args]`, loads
 * outdir/sweep.csv, fits and saves the model to model_dir (per device). */
int mh_camp_calibrate(const char *bench_exe, const char *outdir, const char *model_dir,
                      const char *const *extra_args, mh_camp_model *m, mh_err *err);

/* Validation protocol (paper, sec. VI-B).  Given one kernel's request counts
 * (k->req; warps/time ignored) and its measured times t[i] at warps[i]:
 * _best: geometric-mean relative error of the best line against t (for a
 * kernel known to be camping-free); _extrap: the kernel line started from
 * every configuration i and compared with every other j != i (geometric mean
 * over all pairs).  max_err (may be NULL) receives the largest single error. */
int mh_camp_validate_best(const mh_camp_model *m, const mh_camp_kernel *k, const int *warps,
                          const double *t, int n, double *geo, double *max_err, mh_err *err);
int mh_camp_validate_extrap(const mh_camp_model *m, const mh_camp_kernel *k, const int *warps,
                            const double *t, int n, double *geo, double *max_err, mh_err *err);

/* Geometric mean of |a-b|/b over n pairs (errors below 1e-6 count as 1e-6). */
double mh_camp_geomean_err(const double *pred, const double *meas, int n);

#endif
