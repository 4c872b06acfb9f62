/* One forward pass of the decoding layout over a few tokens, in C: float16 weights, float32
 * arithmetic, the session's float32 KV cache.
 *
 * Why: at the embedded model's size a pass over one token is a few hundred small torch
 * operations whose fixed costs (Python, the dispatcher, allocation) exceed their arithmetic;
 * here the pass is one call that reads each weight once and touches nothing else but the cache.
 * It computes what model_backend/decoding_llama.py computes, in the same order per token: every
 * token's rows are summed the same way whether it comes alone or with others, so a token's
 * logits do not depend on which tokens share its pass.
 *
 * Built by model_backend/native_step.py with the machine's C compiler; no torch headers.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__AVX512F__)
#include <immintrin.h>
#define LANES 16
typedef __m512 vec;
static inline vec vload(const float *p) { return _mm512_loadu_ps(p); }
static inline vec vload_half(const uint16_t *p) {
    return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)p));
}
static inline vec vzero(void) { return _mm512_setzero_ps(); }
static inline vec vset(float x) { return _mm512_set1_ps(x); }
static inline vec vfma(vec a, vec b, vec c) { return _mm512_fmadd_ps(a, b, c); }
static inline vec vadd(vec a, vec b) { return _mm512_add_ps(a, b); }
static inline void vstore(float *p, vec v) { _mm512_storeu_ps(p, v); }
static inline float vsum(vec v) { return _mm512_reduce_add_ps(v); }
#elif defined(__AVX2__) && defined(__F16C__) && defined(__FMA__)
#include <immintrin.h>
#define LANES 8
typedef __m256 vec;
static inline vec vload(const float *p) { return _mm256_loadu_ps(p); }
static inline vec vload_half(const uint16_t *p) {
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p));
}
static inline vec vzero(void) { return _mm256_setzero_ps(); }
static inline vec vset(float x) { return _mm256_set1_ps(x); }
static inline vec vfma(vec a, vec b, vec c) { return _mm256_fmadd_ps(a, b, c); }
static inline vec vadd(vec a, vec b) { return _mm256_add_ps(a, b); }
static inline void vstore(float *p, vec v) { _mm256_storeu_ps(p, v); }
static inline float vsum(vec v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}
#else
#define LANES 0
#endif

#if !LANES /* the portable loop converts float16 itself */
static float half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13);
    } else if (exp != 0) {
        bits = sign | ((exp + 112) << 23) | (man << 13);
    } else if (man == 0) {
        bits = sign;
    } else { /* subnormal: normalise */
        exp = 113;
        while (!(man & 0x400)) {
            man <<= 1;
            exp--;
        }
        bits = sign | (exp << 23) | ((man & 0x3ff) << 13);
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}
#endif

/* The model, as model_backend/native_step.py lays it out. */
typedef struct {
    int32_t hidden, intermediate, heads, kv_heads, head_dim, vocab, layers, max_positions;
    float eps;
    const float *embed;                    /* vocab x hidden */
    const float *rope_cos, *rope_sin;      /* max_positions x head_dim; sines signed */
    const uint16_t *head;                  /* vocab x hidden, float16 */
    const float *final_norm;               /* hidden */
    const uint16_t *const *qkv;            /* (heads + 2 kv_heads) head_dim x hidden */
    const uint16_t *const *o;              /* hidden x heads head_dim */
    const uint16_t *const *gate_up;        /* 2 intermediate x hidden */
    const uint16_t *const *down;           /* hidden x intermediate */
    const float *const *input_norm, *const *post_norm; /* hidden each */
} ndb_model;

/* Matrices come in panels (native_step.py lays them out): the rows in blocks of PANEL, each
 * block stored column by column (in x PANEL float16 values, the last block padded with zero
 * rows). A panel is read as one stream, and a token's PANEL outputs are accumulated in vector
 * registers, one multiply-add per column, in column order; the kernels for one token and for
 * TOKENS tokens (which convert each float16 vector once for all of them) add in exactly that
 * order, so a token's result does not depend on how many tokens share the pass. */
#define PANEL 64
#if LANES == 16
#define TOKENS 4 /* 4 tokens x 4 vectors: 16 of the 32 vector registers */
#else
#define TOKENS 1 /* AVX2 has 16 vector registers: one token's 8 vectors at a time */
#endif

static void panel_tokens1(const uint16_t *p, const float *x, int in, float *y) {
#if LANES
    vec a[PANEL / LANES];
    for (int c = 0; c < PANEL / LANES; c++) a[c] = vzero();
    for (int i = 0; i < in; i++) {
        const vec xv = vset(x[i]);
        const uint16_t *q = p + (size_t)i * PANEL;
        for (int c = 0; c < PANEL / LANES; c++) a[c] = vfma(vload_half(q + c * LANES), xv, a[c]);
    }
    for (int c = 0; c < PANEL / LANES; c++) vstore(y + c * LANES, a[c]);
#else
    for (int r = 0; r < PANEL; r++) y[r] = 0;
    for (int i = 0; i < in; i++)
        for (int r = 0; r < PANEL; r++) y[r] += half_to_float(p[(size_t)i * PANEL + r]) * x[i];
#endif
}

#if TOKENS > 1
static void panel_tokens(const uint16_t *p, const float *x, int in, float *y) {
    vec a[TOKENS][PANEL / LANES];
    for (int t = 0; t < TOKENS; t++)
        for (int c = 0; c < PANEL / LANES; c++) a[t][c] = vzero();
    for (int i = 0; i < in; i++) {
        const uint16_t *q = p + (size_t)i * PANEL;
        vec h[PANEL / LANES];
        for (int c = 0; c < PANEL / LANES; c++) h[c] = vload_half(q + c * LANES);
        for (int t = 0; t < TOKENS; t++) {
            const vec xv = vset(x[(size_t)t * in + i]);
            for (int c = 0; c < PANEL / LANES; c++) a[t][c] = vfma(h[c], xv, a[t][c]);
        }
    }
    for (int t = 0; t < TOKENS; t++)
        for (int c = 0; c < PANEL / LANES; c++) vstore(y + t * PANEL + c * LANES, a[t][c]);
}
#endif

/* y (n x out) = x (n x in) times the panelled float16 matrix w (out x in) transposed. */
static void matmul(const float *x, int n, int in, const uint16_t *w, int out, float *y) {
    float block[TOKENS * PANEL];
    for (int r = 0; r < out; r += PANEL) {
        const uint16_t *p = w + (size_t)r * in;
        const int rows = out - r < PANEL ? out - r : PANEL;
        int t = 0;
#if TOKENS > 1
        for (; t + TOKENS <= n; t += TOKENS) {
            panel_tokens(p, x + (size_t)t * in, in, block);
            for (int k = 0; k < TOKENS; k++)
                memcpy(y + (size_t)(t + k) * out + r, block + k * PANEL, rows * sizeof(float));
        }
#endif
        for (; t < n; t++) {
            panel_tokens1(p, x + (size_t)t * in, in, block);
            memcpy(y + (size_t)t * out + r, block, rows * sizeof(float));
        }
    }
}

static float dot(const float *a, const float *b, int n) {
    int i = 0;
    float s = 0;
#if LANES
    vec acc = vzero();
    for (; i + LANES <= n; i += LANES) acc = vfma(vload(a + i), vload(b + i), acc);
    s = vsum(acc);
#endif
    for (; i < n; i++) s += a[i] * b[i];
    return s;
}

/* y += p * x */
static void axpy(float p, const float *x, float *y, int n) {
    int i = 0;
#if LANES
    vec pv = vset(p);
    for (; i + LANES <= n; i += LANES) vstore(y + i, vfma(pv, vload(x + i), vload(y + i)));
#endif
    for (; i < n; i++) y[i] += p * x[i];
}

static void rms_norm(const float *x, const float *weight, int n, float eps, float *out) {
    float ss = 0;
    for (int i = 0; i < n; i++) ss += x[i] * x[i];
    float scale = 1.0f / sqrtf(ss / n + eps);
    for (int i = 0; i < n; i++) out[i] = x[i] * scale * weight[i];
}

/* HF's rotary embedding: x * cos + rotate_half(x) * sin, the sines of the first half signed. */
static void rope(float *x, const float *cos_p, const float *sin_p, int dim) {
    float rotated[1024];
    int half = dim / 2;
    for (int d = 0; d < dim; d++) rotated[d] = x[(d + half) % dim];
    for (int d = 0; d < dim; d++) x[d] = x[d] * cos_p[d] + rotated[d] * sin_p[d];
}

static void norm_rows(const float *x, int n, int hid, const float *weight, float eps, float *out) {
    for (size_t t = 0; t < (size_t)n; t++) rms_norm(x + t * hid, weight, hid, eps, out + t * hid);
}

/* The rotary embedding of each token's queries and keys (at positions start..), and its keys
 * and values written to the layer's cache. */
static void rope_and_cache(const ndb_model *m, float *qkv, int n, int start, float *keys,
                           float *values, int capacity) {
    const int heads = m->heads, kvh = m->kv_heads, dim = m->head_dim;
    const size_t width = (size_t)(heads + 2 * kvh) * dim, bytes = dim * sizeof(float);
    for (int t = 0; t < n; t++) {
        const int pos = start + t;
        float *row = qkv + t * width;
        const float *c = m->rope_cos + (size_t)pos * dim, *s = m->rope_sin + (size_t)pos * dim;
        for (int k = 0; k < heads + kvh; k++) rope(row + k * dim, c, s, dim);
        for (int k = 0; k < kvh; k++) {
            const size_t at = ((size_t)k * capacity + pos) * dim;
            memcpy(keys + at, row + (heads + k) * dim, bytes);
            memcpy(values + at, row + (heads + kvh + k) * dim, bytes);
        }
    }
}

/* Causal attention: token t (at position start + t) over the cache's first start + t + 1
 * positions, each query head over its group's key and value head. */
static void attend(const ndb_model *m, const float *qkv, int n, int start, const float *keys,
                   const float *values, int capacity, float *att, float *scores) {
    const int heads = m->heads, dim = m->head_dim, group = heads / m->kv_heads;
    const size_t width = (size_t)(heads + 2 * m->kv_heads) * dim;
    const float scale = 1.0f / sqrtf((float)dim);
    for (int t = 0; t < n; t++) {
        const int seen = start + t + 1;
        for (int k = 0; k < heads; k++) {
            const float *q = qkv + t * width + k * dim;
            const float *kc = keys + (size_t)(k / group) * capacity * dim;
            const float *vc = values + (size_t)(k / group) * capacity * dim;
            float top = -INFINITY, sum = 0;
            for (int j = 0; j < seen; j++) {
                scores[j] = dot(q, kc + (size_t)j * dim, dim) * scale;
                if (scores[j] > top) top = scores[j];
            }
            for (int j = 0; j < seen; j++) sum += (scores[j] = expf(scores[j] - top));
            float *out = att + (size_t)t * heads * dim + k * dim;
            memset(out, 0, dim * sizeof(float));
            for (int j = 0; j < seen; j++) axpy(scores[j] / sum, vc + (size_t)j * dim, out, dim);
        }
    }
}

/* silu(gate) * up for each token's row of gate and up (2 x inter), written as rows of inter. */
static void swiglu_rows(float *gate_up, int n, int inter) {
    for (int t = 0; t < n; t++) {
        float *g = gate_up + (size_t)t * 2 * inter, *u = g + inter;
        for (int i = 0; i < inter; i++) g[i] = g[i] / (1.0f + expf(-g[i])) * u[i];
        if (t) memmove(gate_up + (size_t)t * inter, g, inter * sizeof(float));
    }
}

static void add(float *x, const float *y, size_t count) {
    for (size_t i = 0; i < count; i++) x[i] += y[i];
}

/* Floats of work space a pass over n tokens after `start` cached ones needs. */
int64_t ndb_work_floats(const ndb_model *m, int n, int start) {
    int64_t qkv = (int64_t)(m->heads + 2 * m->kv_heads) * m->head_dim;
    return (int64_t)n * (2 * m->hidden + qkv + m->heads * m->head_dim + 2 * m->intermediate) +
           start + n;
}

/* The pass: appends n tokens (ids) at positions start.. to the cache (keys[l], values[l]: one
 * sequence, kv_heads x capacity x head_dim each) and writes the logits of the last `keep`
 * tokens to logits (keep x vocab); work holds ndb_work_floats(m, n, start) floats. Returns 0,
 * or -1 (nothing written) for an id outside the vocabulary or a pass the cache or the rotary
 * tables have no room for. */
int ndb_forward(const ndb_model *m, const int64_t *ids, int n, int start, float *const *keys,
                float *const *values, int capacity, int keep, float *logits, float *work) {
    const int hid = m->hidden, inter = m->intermediate, dim = m->head_dim;
    const int qkv_dim = (m->heads + 2 * m->kv_heads) * dim, att_dim = m->heads * dim;
    const int total = start + n;
    if (n < 1 || keep < 0 || keep > n || total > capacity || total > m->max_positions)
        return -1;
    if (dim > 1024) return -1;
    for (int t = 0; t < n; t++)
        if (ids[t] < 0 || ids[t] >= m->vocab) return -1;
    float *x = work, *h = x + (size_t)n * hid, *qkv = h + (size_t)n * hid;
    float *att = qkv + (size_t)n * qkv_dim, *gu = att + (size_t)n * att_dim;
    float *scores = gu + (size_t)n * 2 * inter;

    for (int t = 0; t < n; t++)
        memcpy(x + (size_t)t * hid, m->embed + ids[t] * hid, hid * sizeof(float));
    for (int l = 0; l < m->layers; l++) {
        norm_rows(x, n, hid, m->input_norm[l], m->eps, h);
        matmul(h, n, hid, m->qkv[l], qkv_dim, qkv);
        rope_and_cache(m, qkv, n, start, keys[l], values[l], capacity);
        attend(m, qkv, n, start, keys[l], values[l], capacity, att, scores);
        matmul(att, n, att_dim, m->o[l], hid, h);
        add(x, h, (size_t)n * hid);
        norm_rows(x, n, hid, m->post_norm[l], m->eps, h);
        matmul(h, n, hid, m->gate_up[l], 2 * inter, gu);
        swiglu_rows(gu, n, inter);
        matmul(gu, n, inter, m->down[l], hid, h);
        add(x, h, (size_t)n * hid);
    }
    norm_rows(x + (size_t)(n - keep) * hid, keep, hid, m->final_norm, m->eps, h);
    if (keep) matmul(h, keep, hid, m->head, m->vocab, logits);
    return 0;
}
