#include "nnue.h"

#include <algorithm>
#include <cstring>
#include <iterator>

#include "raw_bytes.h"
#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
#define MAKRUK_NNUE_AVX2 1
#include <immintrin.h>
#endif

namespace makruk::engine::nnue {

namespace {

constexpr char MAGIC[4] = {'M', 'K', 'N', 'N'};

bool scalar_forced = false;

// The rights inputs of a rights byte, seen from `perspective`, into out[].
int rights_inputs(uint8_t rights, Color perspective, int* out) {
  const bool white = perspective == WHITE;
  const uint8_t own_king = white ? WHITE_KING_RIGHT : BLACK_KING_RIGHT;
  const uint8_t own_neang = white ? WHITE_NEANG_RIGHT : BLACK_NEANG_RIGHT;
  const uint8_t their_king = white ? BLACK_KING_RIGHT : WHITE_KING_RIGHT;
  const uint8_t their_neang = white ? BLACK_NEANG_RIGHT : WHITE_NEANG_RIGHT;
  int n = 0;
  if (rights & own_king) out[n++] = RIGHTS_INPUT;
  if (rights & own_neang) out[n++] = RIGHTS_INPUT + 1;
  if (rights & their_king) out[n++] = RIGHTS_INPUT + 2;
  if (rights & their_neang) out[n++] = RIGHTS_INPUT + 3;
  return n;
}

inline int16_t wrap_add(int16_t a, int16_t b) { return int16_t(uint16_t(a) + uint16_t(b)); }
inline int16_t wrap_sub(int16_t a, int16_t b) { return int16_t(uint16_t(a) - uint16_t(b)); }

void add_row_scalar(int16_t* acc, const int16_t* row) {
  for (int i = 0; i < HIDDEN; ++i) acc[i] = wrap_add(acc[i], row[i]);
}
void sub_row_scalar(int16_t* acc, const int16_t* row) {
  for (int i = 0; i < HIDDEN; ++i) acc[i] = wrap_sub(acc[i], row[i]);
}

// The first dense layer (one bucket's weights and biases): 2 × HIDDEN clipped
// inputs (0..127) to L1 sums.
void l1_scalar(const int8_t* weights, const int32_t* bias, const uint8_t* in, int32_t* out) {
#ifdef __wasm_simd128__
  // WebAssembly SIMD (the browser's build for browsers that have it): inputs and weights
  // widened to int16, their products summed in pairs into int32 (exact: at most
  // 2 × 127 × 128), eight at a time; the same sums as below.
  for (int o = 0; o < L1; ++o) {
    const int8_t* w = weights + o * 2 * HIDDEN;
    v128_t sum = wasm_i32x4_splat(0);
    for (int i = 0; i < 2 * HIDDEN; i += 16) {
      const v128_t x = wasm_v128_load(in + i), y = wasm_v128_load(w + i);
      sum = wasm_i32x4_add(sum, wasm_i32x4_dot_i16x8(wasm_u16x8_extend_low_u8x16(x), wasm_i16x8_extend_low_i8x16(y)));
      sum = wasm_i32x4_add(sum, wasm_i32x4_dot_i16x8(wasm_u16x8_extend_high_u8x16(x), wasm_i16x8_extend_high_i8x16(y)));
    }
    out[o] = bias[o] + wasm_i32x4_extract_lane(sum, 0) + wasm_i32x4_extract_lane(sum, 1) +
             wasm_i32x4_extract_lane(sum, 2) + wasm_i32x4_extract_lane(sum, 3);
  }
  return;
#endif
  for (int o = 0; o < L1; ++o) {
    int32_t s = bias[o];
    const int8_t* w = weights + o * 2 * HIDDEN;
    for (int i = 0; i < 2 * HIDDEN; ++i) s += int32_t(in[i]) * int32_t(w[i]);
    out[o] = s;
  }
}

#ifdef MAKRUK_NNUE_AVX2
__attribute__((target("avx2"))) void add_row_avx2(int16_t* acc, const int16_t* row) {
  for (int i = 0; i < HIDDEN; i += 16) {
    __m256i a = _mm256_load_si256(reinterpret_cast<const __m256i*>(acc + i));
    __m256i r = _mm256_load_si256(reinterpret_cast<const __m256i*>(row + i));
    _mm256_store_si256(reinterpret_cast<__m256i*>(acc + i), _mm256_add_epi16(a, r));
  }
}
__attribute__((target("avx2"))) void sub_row_avx2(int16_t* acc, const int16_t* row) {
  for (int i = 0; i < HIDDEN; i += 16) {
    __m256i a = _mm256_load_si256(reinterpret_cast<const __m256i*>(acc + i));
    __m256i r = _mm256_load_si256(reinterpret_cast<const __m256i*>(row + i));
    _mm256_store_si256(reinterpret_cast<__m256i*>(acc + i), _mm256_sub_epi16(a, r));
  }
}
// maddubs multiplies unsigned inputs (≤ 127) by signed weights and adds pairs
// into int16: at most 2 × 127 × 128 in size, so it never saturates and the
// sums equal the scalar code's.
__attribute__((target("avx2"))) void l1_avx2(const int8_t* weights, const int32_t* bias, const uint8_t* in,
                                             int32_t* out) {
  const __m256i ones = _mm256_set1_epi16(1);
  for (int o = 0; o < L1; ++o) {
    const int8_t* w = weights + o * 2 * HIDDEN;
    __m256i sum = _mm256_setzero_si256();
    for (int i = 0; i < 2 * HIDDEN; i += 32) {
      __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
      __m256i y = _mm256_load_si256(reinterpret_cast<const __m256i*>(w + i));
      sum = _mm256_add_epi32(sum, _mm256_madd_epi16(_mm256_maddubs_epi16(x, y), ones));
    }
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
    out[o] = bias[o] + _mm_cvtsi128_si32(s);
  }
}
// The accumulators as the first layer's input: rounded, shifted, clipped to
// 0..127; packus works within 128-bit lanes, the permute puts them back in order.
__attribute__((target("avx2"))) void activations_avx2(const int16_t* acc, uint8_t* out) {
  const __m256i round = _mm256_set1_epi16(1 << (ACC_SHIFT - 1)), zero = _mm256_setzero_si256(),
                top = _mm256_set1_epi16(FT_SCALE);
  for (int i = 0; i < HIDDEN; i += 32) {
    __m256i a = _mm256_load_si256(reinterpret_cast<const __m256i*>(acc + i));
    __m256i b = _mm256_load_si256(reinterpret_cast<const __m256i*>(acc + i + 16));
    a = _mm256_min_epi16(_mm256_max_epi16(_mm256_srai_epi16(_mm256_adds_epi16(a, round), ACC_SHIFT), zero), top);
    b = _mm256_min_epi16(_mm256_max_epi16(_mm256_srai_epi16(_mm256_adds_epi16(b, round), ACC_SHIFT), zero), top);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                        _mm256_permute4x64_epi64(_mm256_packus_epi16(a, b), 0xD8));
  }
}
// 32 int16 inputs times each row of int16 weights, into int32 sums.
__attribute__((target("avx2"))) void dense_avx2(const int16_t* in, const int16_t* weights, const int32_t* bias,
                                                int rows, int32_t* out) {
  const __m256i x0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in));
  const __m256i x1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + 16));
  for (int o = 0; o < rows; ++o) {
    const int16_t* w = weights + o * 32;
    __m256i sum = _mm256_add_epi32(
        _mm256_madd_epi16(x0, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w))),
        _mm256_madd_epi16(x1, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + 16))));
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
    out[o] = bias[o] + _mm_cvtsi128_si32(s);
  }
}
bool cpu_has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}
#endif

bool avx2() {
#ifdef MAKRUK_NNUE_AVX2
  return !scalar_forced && cpu_has_avx2();
#else
  return false;
#endif
}

void add_row(int16_t* acc, const int16_t* row) {
#ifdef MAKRUK_NNUE_AVX2
  if (avx2()) return add_row_avx2(acc, row);
#endif
  add_row_scalar(acc, row);
}
void sub_row(int16_t* acc, const int16_t* row) {
#ifdef MAKRUK_NNUE_AVX2
  if (avx2()) return sub_row_avx2(acc, row);
#endif
  sub_row_scalar(acc, row);
}

// An accumulator's value as the first dense layer's input, 0..127.
inline uint8_t activation(int16_t v) {
  return uint8_t(std::clamp((int32_t(v) + (1 << (ACC_SHIFT - 1))) >> ACC_SHIFT, 0, FT_SCALE));
}

}  // namespace

int active_inputs(const Position& pos, Color perspective, int out[MAX_ACTIVE]) {
  int n = 0;
  const int zone = zone_of(pos, perspective);
  for (Bitboard b = pos.pieces(); b;) {
    const Square s = pop_lsb(b);
    out[n++] = piece_input(perspective, pos.piece_on(s), s, zone);
  }
  n += rights_inputs(pos.rights(), perspective, out + n);
  if (pos.variant() == Variant::Ouk) out[n++] = OUK_INPUT;
  return n;
}

std::unique_ptr<Network> load(std::string_view bytes, std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error) *error = why;
    return std::unique_ptr<Network>();
  };
  char magic[4];
  uint32_t header[7];
  if (!read_raw(bytes, magic, 4) || std::memcmp(magic, MAGIC, 4) != 0) return fail("not a network file (no MKNN header)");
  if (!read_raw(bytes, header, 1)) return fail("the header is cut short");
  if (header[0] != FILE_VERSION && header[0] != 6)
    return fail("format version " + std::to_string(header[0]) + ", expected 6 or " + std::to_string(FILE_VERSION));
  if (!read_raw(bytes, header + 1, header[0] == 6 ? 5 : 6)) return fail("the header is cut short");
  const uint32_t buckets = header[0] == 6 ? 1 : header[6];
  if (buckets != 1 && buckets != BUCKETS)
    return fail(std::to_string(buckets) + " sets of dense layers; this build has " + std::to_string(BUCKETS));
  if (header[1] != INPUTS || header[2] != HIDDEN || header[3] != L1 || header[4] != L2)
    return fail("the layer sizes differ from this build's (" + std::to_string(INPUTS) + ", " +
                std::to_string(HIDDEN) + ", " + std::to_string(L1) + ", " + std::to_string(L2) + ")");
  if (header[5] > 7) return fail("unknown flags " + std::to_string(header[5]));
  if (!(header[5] & 6)) return fail("trained on no variant (flags " + std::to_string(header[5]) + ")");
  auto net = std::make_unique<Network>();
  net->residual = header[5] & 1;
  net->variants = uint8_t(header[5] >> 1);
  // A dense array: the file's sets; one set in a build with more goes to every bucket.
  auto dense = [&](auto* values, size_t per_set) {
    if (!read_raw(bytes, values, buckets * per_set)) return false;
    for (size_t k = buckets; k < size_t(BUCKETS); ++k) std::copy_n(values, per_set, values + k * per_set);
    return true;
  };
  if (!read_raw(bytes, net->ft_weights, std::size(net->ft_weights)) || !read_raw(bytes, net->ft_bias, HIDDEN) ||
      !dense(net->l1_weights, size_t(L1) * 2 * HIDDEN) || !dense(net->l1_bias, L1) ||
      !dense(net->l2_weights, size_t(L2) * L1) || !dense(net->l2_bias, L2) || !dense(net->out_weights, L2) ||
      !dense(net->out_bias, 1))
    return fail("the weights are cut short");
  if (!bytes.empty()) return fail(std::to_string(bytes.size()) + " bytes after the weights");
  // Within these bounds no sum can overflow (the trainer stays inside them).
  constexpr int32_t max_weight = DENSE_LIMIT * DENSE_SCALE, max_bias = 1 << 29;
  auto out_of_range = [](const auto* values, size_t n, int32_t limit) {
    return std::any_of(values, values + n, [&](auto v) { return v > limit || v < -limit; });
  };
  if (out_of_range(net->l2_weights, std::size(net->l2_weights), max_weight) ||
      out_of_range(net->out_weights, std::size(net->out_weights), max_weight))
    return fail("a dense weight beyond ±" + std::to_string(max_weight));
  if (out_of_range(net->l1_bias, std::size(net->l1_bias), max_bias) ||
      out_of_range(net->l2_bias, std::size(net->l2_bias), max_bias) ||
      out_of_range(net->out_bias, std::size(net->out_bias), max_bias))
    return fail("a bias beyond ±" + std::to_string(max_bias));
  return net;
}

std::unique_ptr<Network> load_file(const std::string& path, std::string* error) {
  std::string bytes;
  if (!read_file(path, bytes)) {
    if (error) *error = "cannot read it";
    return nullptr;
  }
  return load(bytes, error);
}

std::string save(const Network& net) {
  std::string out(MAGIC, 4);
  const uint32_t header[7] = {FILE_VERSION, INPUTS, HIDDEN, L1, L2,
                              (net.residual ? 1u : 0u) | uint32_t(net.variants & 3) << 1, BUCKETS};
  write_raw(out, header, 7);
  write_raw(out, net.ft_weights, std::size(net.ft_weights));
  write_raw(out, net.ft_bias, HIDDEN);
  write_raw(out, net.l1_weights, std::size(net.l1_weights));
  write_raw(out, net.l1_bias, std::size(net.l1_bias));
  write_raw(out, net.l2_weights, std::size(net.l2_weights));
  write_raw(out, net.l2_bias, std::size(net.l2_bias));
  write_raw(out, net.out_weights, std::size(net.out_weights));
  write_raw(out, net.out_bias, BUCKETS);
  return out;
}

void refresh(const Network& net, const Position& pos, Accumulator& acc) {
  for (Color c : {WHITE, BLACK}) {
    std::memcpy(acc.v[c], net.ft_bias, sizeof acc.v[c]);
    int inputs[MAX_ACTIVE];
    const int n = active_inputs(pos, c, inputs);
    for (int i = 0; i < n; ++i) add_row(acc.v[c], net.ft_weights + inputs[i] * HIDDEN);
  }
}

Delta last_move_delta(const Position& after) {
  Delta d;
  const Move m = after.last_move();
  if (m.is_none()) return d;
  const Piece now = after.piece_on(m.to());
  const Color us = color_of(now);
  const Piece before = m.is_promotion() ? make_piece(us, PAWN) : now;
  const Piece captured = after.captured_piece();
  const uint8_t old_rights = after.state(after.history_size() - 2).rights;
  for (Color c : {WHITE, BLACK}) {
    const int zone = zone_of(after, c);
    if (KING_ZONES > 1 && c == us && type_of(now) == KING) {
      if (king_zone(seen_from(us, m.from())) != zone) {
        d.n_all[c] = active_inputs(after, c, d.all[c]);
        continue;
      }
    }
    int r = 0;
    d.removed[c][r++] = piece_input(c, before, m.from(), zone);
    if (captured != NO_PIECE) d.removed[c][r++] = piece_input(c, captured, m.to(), zone);
    // Rights are only ever lost.
    r += rights_inputs(uint8_t(old_rights & ~after.rights()), c, d.removed[c] + r);
    d.added[c][0] = piece_input(c, now, m.to(), zone);
    d.n_removed = r;
  }
  d.n_added = 1;
  return d;
}

void update(const Network& net, const Accumulator& from, const Delta& d, Accumulator& to) {
  for (Color c : {WHITE, BLACK}) {
    if (KING_ZONES > 1 && d.n_all[c] >= 0) {  // the king changed zone: this perspective afresh
      std::memcpy(to.v[c], net.ft_bias, sizeof to.v[c]);
      for (int i = 0; i < d.n_all[c]; ++i) add_row(to.v[c], net.ft_weights + d.all[c][i] * HIDDEN);
      continue;
    }
    if (&from != &to) std::memcpy(to.v[c], from.v[c], sizeof to.v[c]);
    for (int i = 0; i < d.n_removed; ++i) sub_row(to.v[c], net.ft_weights + d.removed[c][i] * HIDDEN);
    for (int i = 0; i < d.n_added; ++i) add_row(to.v[c], net.ft_weights + d.added[c][i] * HIDDEN);
  }
}

namespace {
Value centipawns(int32_t out) {
  const int64_t cp = int64_t(out) * OUTPUT_SCALE / (int64_t(HIDDEN_ONE) * DENSE_SCALE);
  return Value(std::clamp<int64_t>(cp, -(VALUE_MATE_IN_MAX_PLY - 1), VALUE_MATE_IN_MAX_PLY - 1));
}
}  // namespace

Value evaluate(const Network& net, const Accumulator& acc, Color side_to_move, int bucket) {
  static_assert(L1 == 32 && L2 == 32, "the dense code reads 32 inputs a row");
  const int8_t* l1_weights = net.l1_weights + size_t(bucket) * L1 * 2 * HIDDEN;
  const int32_t* l1_bias = net.l1_bias + bucket * L1;
  const int16_t* l2_weights = net.l2_weights + bucket * L2 * L1;
  const int32_t* l2_bias = net.l2_bias + bucket * L2;
  const int16_t* out_weights = net.out_weights + bucket * L2;
  const int32_t out_bias = net.out_bias[bucket];
  alignas(64) uint8_t in[2 * HIDDEN];
  int32_t s1[L1], s2[L2];
  alignas(32) int16_t h1[L1], h2[L2];
  constexpr int32_t half1 = 1 << (L1_SHIFT - 1), half2 = 1 << (DENSE_SHIFT - 1);  // round to the nearest
#ifdef MAKRUK_NNUE_AVX2
  if (avx2()) {
    activations_avx2(acc.v[side_to_move], in);
    activations_avx2(acc.v[~side_to_move], in + HIDDEN);
    l1_avx2(l1_weights, l1_bias, in, s1);
    for (int o = 0; o < L1; ++o) h1[o] = int16_t(std::clamp((s1[o] + half1) >> L1_SHIFT, 0, HIDDEN_ONE));
    dense_avx2(h1, l2_weights, l2_bias, L2, s2);
    for (int o = 0; o < L2; ++o) h2[o] = int16_t(std::clamp((s2[o] + half2) >> DENSE_SHIFT, 0, HIDDEN_ONE));
    int32_t out;
    dense_avx2(h2, out_weights, &out_bias, 1, &out);
    return centipawns(out);
  }
#endif
  for (int i = 0; i < HIDDEN; ++i) {
    in[i] = activation(acc.v[side_to_move][i]);
    in[HIDDEN + i] = activation(acc.v[~side_to_move][i]);
  }
  l1_scalar(l1_weights, l1_bias, in, s1);
  for (int o = 0; o < L1; ++o) h1[o] = int16_t(std::clamp((s1[o] + half1) >> L1_SHIFT, 0, HIDDEN_ONE));
  for (int o = 0; o < L2; ++o) {
    int32_t s = l2_bias[o];
    for (int i = 0; i < L1; ++i) s += int32_t(h1[i]) * l2_weights[o * L1 + i];
    h2[o] = int16_t(std::clamp((s + half2) >> DENSE_SHIFT, 0, HIDDEN_ONE));
  }
  int32_t out = out_bias;
  for (int i = 0; i < L2; ++i) out += int32_t(h2[i]) * out_weights[i];
  return centipawns(out);
}


bool uses_avx2() { return avx2(); }
void force_scalar(bool on) { scalar_forced = on; }

AccumulatorChecks& accumulator_checks() {
  static AccumulatorChecks checks;
  return checks;
}

}  // namespace makruk::engine::nnue
