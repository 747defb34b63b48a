#include "nnue_train.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <numeric>
#include <ostream>
#include <random>

#include "core/position.h"
#include "raw_bytes.h"
#include "tune.h"

namespace makruk::engine::nnue {

namespace {

inline float clamp01(float x) { return std::min(1.0f, std::max(0.0f, x)); }
inline double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// The target for the side to move.
float target_of(const TrainData::Entry& e, const TrainOptions& o) {
  double t = e.result;
  if (e.has_score) t = o.lambda * e.result + (1 - o.lambda) * sigmoid(e.score * o.k / 400.0);
  return float(e.stm == WHITE ? t : 1 - t);
}

// The expected score (0..1, the side to move's) for a network output `out`:
// sigmoid(cp · k / 400), the hand-written evaluation added for a residual
// network.
double expected_score(const TrainData::Entry& e, double out, const TrainOptions& o) {
  const double base = o.residual ? e.hand_eval * o.k / 400.0 : 0.0;
  return sigmoid(base + out * (OUTPUT_SCALE * o.k / 400.0));
}

// One position's forward pass with what the backward pass needs.
struct Pass {
  float acc[2][HIDDEN];  // [0]: the side to move's perspective
  float x[2 * HIDDEN], z1[L1], h1[L1], z2[L2], h2[L2];
  float out;
};

// The offsets of one bucket's dense layers in the weights.
struct Dense {
  size_t l1_w, l1_b, l2_w, l2_b, out_w, out_b;
  explicit Dense(int bucket)
      : l1_w(FloatNetwork::L1_W + size_t(bucket) * L1 * 2 * HIDDEN),
        l1_b(FloatNetwork::L1_B + size_t(bucket) * L1),
        l2_w(FloatNetwork::L2_W + size_t(bucket) * L2 * L1),
        l2_b(FloatNetwork::L2_B + size_t(bucket) * L2),
        out_w(FloatNetwork::OUT_W + size_t(bucket) * L2),
        out_b(FloatNetwork::OUT_B + size_t(bucket)) {}
};

void forward(const std::vector<float>& w, const uint16_t* in[2], const int n[2], int bucket, Pass& p) {
  const Dense d(bucket);
  for (int side = 0; side < 2; ++side) {
    float* a = p.acc[side];
    std::copy_n(&w[FloatNetwork::FT_B], HIDDEN, a);
    for (int i = 0; i < n[side]; ++i) {
      const float* row = &w[FloatNetwork::FT_W + size_t(in[side][i]) * HIDDEN];
      for (int j = 0; j < HIDDEN; ++j) a[j] += row[j];
    }
    for (int j = 0; j < HIDDEN; ++j) p.x[side * HIDDEN + j] = clamp01(a[j]);
  }
  for (int o = 0; o < L1; ++o) {
    const float* row = &w[d.l1_w + size_t(o) * 2 * HIDDEN];
    float s = w[d.l1_b + o];
    for (int i = 0; i < 2 * HIDDEN; ++i) s += row[i] * p.x[i];
    p.z1[o] = s;
    p.h1[o] = clamp01(s);
  }
  for (int o = 0; o < L2; ++o) {
    const float* row = &w[d.l2_w + size_t(o) * L1];
    float s = w[d.l2_b + o];
    for (int i = 0; i < L1; ++i) s += row[i] * p.h1[i];
    p.z2[o] = s;
    p.h2[o] = clamp01(s);
  }
  float s = w[d.out_b];
  for (int i = 0; i < L2; ++i) s += w[d.out_w + i] * p.h2[i];
  p.out = s;
}

// Adds d(loss)/d(weights) for one position, given d(loss)/d(out), into g.
void backward(const std::vector<float>& w, const uint16_t* in[2], const int n[2], int bucket, const Pass& p,
              float d_out, std::vector<float>& g) {
  const Dense d(bucket);
  float d_z2[L2], d_h1[L1] = {}, d_z1[L1], d_x[2 * HIDDEN] = {};
  for (int i = 0; i < L2; ++i) {
    g[d.out_w + i] += d_out * p.h2[i];
    d_z2[i] = p.z2[i] > 0 && p.z2[i] < 1 ? d_out * w[d.out_w + i] : 0;
  }
  g[d.out_b] += d_out;
  for (int o = 0; o < L2; ++o) {
    if (d_z2[o] == 0) continue;
    const float* row = &w[d.l2_w + size_t(o) * L1];
    float* grow = &g[d.l2_w + size_t(o) * L1];
    for (int i = 0; i < L1; ++i) {
      grow[i] += d_z2[o] * p.h1[i];
      d_h1[i] += d_z2[o] * row[i];
    }
    g[d.l2_b + o] += d_z2[o];
  }
  for (int o = 0; o < L1; ++o) d_z1[o] = p.z1[o] > 0 && p.z1[o] < 1 ? d_h1[o] : 0;
  for (int o = 0; o < L1; ++o) {
    if (d_z1[o] == 0) continue;
    const float* row = &w[d.l1_w + size_t(o) * 2 * HIDDEN];
    float* grow = &g[d.l1_w + size_t(o) * 2 * HIDDEN];
    for (int i = 0; i < 2 * HIDDEN; ++i) {
      grow[i] += d_z1[o] * p.x[i];
      d_x[i] += d_z1[o] * row[i];
    }
    g[d.l1_b + o] += d_z1[o];
  }
  for (int side = 0; side < 2; ++side) {
    float d_acc[HIDDEN];
    for (int j = 0; j < HIDDEN; ++j) {
      const float a = p.acc[side][j];
      d_acc[j] = a > 0 && a < 1 ? d_x[side * HIDDEN + j] : 0;
      g[FloatNetwork::FT_B + j] += d_acc[j];
    }
    for (int i = 0; i < n[side]; ++i) {
      float* grow = &g[FloatNetwork::FT_W + size_t(in[side][i]) * HIDDEN];
      for (int j = 0; j < HIDDEN; ++j) grow[j] += d_acc[j];
    }
  }
}

// The side to move's perspective first.
void inputs_of(const TrainData& data, const TrainData::Entry& e, const uint16_t* in[2], int n[2]) {
  const uint16_t* white = data.inputs.data() + e.begin;
  const uint16_t* black = white + e.n_white;
  const bool w = e.stm == WHITE;
  in[0] = w ? white : black, n[0] = w ? e.n_white : e.n_black;
  in[1] = w ? black : white, n[1] = w ? e.n_black : e.n_white;
}

double mean_error(const FloatNetwork& net, const TrainData& data, const std::vector<uint32_t>& which,
                  const TrainOptions& o) {
  if (which.empty()) return 0;
  double sum = 0;
  Pass p;
  for (uint32_t i : which) {
    const auto& e = data.entries[i];
    const uint16_t* in[2];
    int n[2];
    inputs_of(data, e, in, n);
    forward(net.w, in, n, e.bucket, p);
    const double d = expected_score(e, p.out, o) - target_of(e, o);
    sum += d * d;
  }
  return sum / double(which.size());
}

}  // namespace

int train_inputs(const Position& pos, Color perspective, uint16_t out[MAX_TRAIN_ACTIVE]) {
  int buf[MAX_ACTIVE];
  const int n = active_inputs(pos, perspective, buf);
  int k = 0;
  for (int i = 0; i < n; ++i) out[k++] = uint16_t(buf[i]);
  if (KING_ZONES > 1)
    for (int i = 0; i < n; ++i)
      if (buf[i] < ZONED_INPUTS) out[k++] = uint16_t(FloatNetwork::SHARED_INPUT + size_t(buf[i] % PIECE_INPUTS));
  return k;
}

void add_position(const Position& pos, double result, int score, bool has_score, TrainData& data) {
  TrainData::Entry e;
  e.begin = uint32_t(data.inputs.size());
  uint16_t buf[MAX_TRAIN_ACTIVE];
  e.n_white = uint8_t(train_inputs(pos, WHITE, buf));
  data.inputs.insert(data.inputs.end(), buf, buf + e.n_white);
  e.n_black = uint8_t(train_inputs(pos, BLACK, buf));
  data.inputs.insert(data.inputs.end(), buf, buf + e.n_black);
  e.stm = uint8_t(pos.side_to_move());
  e.result = float(result);
  e.has_score = has_score;
  e.score = has_score ? float(score) : 0;
  e.hand_eval = float(engine::evaluate(pos));
  e.variant = uint8_t(pos.variant());
  e.bucket = uint8_t(bucket_of(pos));
  data.entries.push_back(e);
}

void add_mirrored_last(TrainData& data) {
  TrainData::Entry e = data.entries.back();
  const uint32_t from = e.begin, count = uint32_t(e.n_white) + e.n_black;
  e.begin = uint32_t(data.inputs.size());
  for (uint32_t i = 0; i < count; ++i) {
    const uint16_t input = data.inputs[from + i];
    // A piece's square's file turned over (king zones are left-right symmetric).
    constexpr uint16_t shared = uint16_t(FloatNetwork::SHARED_INPUT);
    data.inputs.push_back(input < ZONED_INPUTS ? uint16_t(input ^ 7)
                          : input >= shared    ? uint16_t(shared + ((input - shared) ^ 7))
                                               : input);
  }
  data.entries.push_back(e);
}

bool load_train_data(std::istream& in, Variant variant, size_t max_positions, TrainData& data, std::string* error,
                     bool mirror) {
  auto full = [&] { return max_positions && data.entries.size() >= max_positions; };
  return read_sample_positions(in, variant, full, [&](const Position& pos, double result, int score) {
    add_position(pos, result, score, score != NO_SCORE, data);
    // Ouk's first-move rights are not symmetric (the king leaps from d1, not e1):
    // an Ouk position is mirrored only once every right is gone.
    if (mirror && (variant == Variant::Makruk || pos.rights() == 0)) add_mirrored_last(data);
  }, error);
}

FloatNetwork::FloatNetwork(uint64_t seed) : w(SIZE, 0.0f) {
  std::mt19937_64 rng(seed);
  auto fill = [&](size_t from, size_t count, float limit) {
    std::uniform_real_distribution<float> u(-limit, limit);
    for (size_t i = 0; i < count; ++i) w[from + i] = u(rng);
  };
  fill(FT_W, size_t(INPUTS) * HIDDEN, 0.1f);
  if (KING_ZONES > 1) {  // the zones start alike: the shared inputs carry the pieces' values
    std::fill_n(&w[FT_W], size_t(ZONED_INPUTS) * HIDDEN, 0.0f);
    fill(FT_W + SHARED_INPUT * HIDDEN, size_t(PIECE_INPUTS) * HIDDEN, 0.1f);
  }
  std::fill_n(&w[FT_B], HIDDEN, 0.25f);
  fill(L1_W, B * L1 * 2 * HIDDEN, std::sqrt(3.0f / (2 * HIDDEN)) * 2);
  fill(L2_W, B * L2 * L1, std::sqrt(3.0f / L1) * 2);
  std::fill_n(&w[L1_B], B * L1, 0.1f);
  std::fill_n(&w[L2_B], B * L2, 0.1f);
  fill(OUT_W, B * L2, 0.5f);
}

float FloatNetwork::forward(const uint16_t* us, int n_us, const uint16_t* them, int n_them, int bucket) const {
  const uint16_t* in[2] = {us, them};
  const int n[2] = {n_us, n_them};
  Pass p;
  nnue::forward(w, in, n, bucket, p);
  return p.out;
}

std::unique_ptr<Network> FloatNetwork::quantise() const {
  auto net = std::make_unique<Network>();
  auto q = [](float x, double scale, double lo, double hi) { return std::clamp(std::round(x * scale), lo, hi); };
  for (size_t i = 0; i < size_t(INPUTS) * HIDDEN; ++i) {
    float x = w[FT_W + i];
    if (KING_ZONES > 1 && i < size_t(ZONED_INPUTS) * HIDDEN)  // the shared inputs folded into each zone's
      x += w[FT_W + SHARED_INPUT * HIDDEN + i % (size_t(PIECE_INPUTS) * HIDDEN)];
    net->ft_weights[i] = int16_t(q(x, ACC_SCALE, -32767, 32767));
  }
  for (int i = 0; i < HIDDEN; ++i) net->ft_bias[i] = int16_t(q(w[FT_B + i], ACC_SCALE, -32767, 32767));
  const double big = double(1 << 29), dense_bias = double(HIDDEN_ONE) * DENSE_SCALE;
  for (size_t i = 0; i < B * L1 * 2 * HIDDEN; ++i) net->l1_weights[i] = int8_t(q(w[L1_W + i], L1_SCALE, -128, 127));
  for (size_t i = 0; i < B * L1; ++i) net->l1_bias[i] = int32_t(q(w[L1_B + i], L1_ONE, -big, big));
  for (size_t i = 0; i < B * L2 * L1; ++i) net->l2_weights[i] = int16_t(q(w[L2_W + i], DENSE_SCALE, -16384, 16384));
  for (size_t i = 0; i < B * L2; ++i) net->l2_bias[i] = int32_t(q(w[L2_B + i], dense_bias, -big, big));
  for (size_t i = 0; i < B * L2; ++i) net->out_weights[i] = int16_t(q(w[OUT_W + i], DENSE_SCALE, -16384, 16384));
  for (size_t i = 0; i < B; ++i) net->out_bias[i] = int32_t(q(w[OUT_B + i], dense_bias, -big, big));
  return net;
}

FloatNetwork FloatNetwork::from(const Network& net) {
  FloatNetwork f(0);
  std::fill(f.w.begin(), f.w.end(), 0.0f);  // with king zones the shared inputs start at nothing
  auto put = [&](size_t at, const auto* q, size_t n, double scale) {
    for (size_t i = 0; i < n; ++i) f.w[at + i] = float(double(q[i]) / scale);
  };
  const double dense_bias = double(HIDDEN_ONE) * DENSE_SCALE;
  put(FT_W, net.ft_weights, size_t(INPUTS) * HIDDEN, ACC_SCALE);
  put(FT_B, net.ft_bias, HIDDEN, ACC_SCALE);
  put(L1_W, net.l1_weights, B * L1 * 2 * HIDDEN, L1_SCALE);
  put(L1_B, net.l1_bias, B * L1, L1_ONE);
  put(L2_W, net.l2_weights, B * L2 * L1, DENSE_SCALE);
  put(L2_B, net.l2_bias, B * L2, dense_bias);
  put(OUT_W, net.out_weights, B * L2, DENSE_SCALE);
  put(OUT_B, net.out_bias, B, dense_bias);
  f.fresh = false;
  return f;
}

uint64_t data_fingerprint(const TrainData& data) {
  uint64_t h = 0xcbf29ce484222325ULL;
  auto mix = [&](uint64_t x) {
    h = (h ^ x) * 0x100000001b3ULL;
    h ^= h >> 29;
  };
  mix(data.entries.size());
  mix(data.inputs.size());
  for (const auto& e : data.entries) {
    mix(e.begin);
    mix(uint64_t(e.n_white) | uint64_t(e.n_black) << 8 | uint64_t(e.stm) << 16 | uint64_t(e.has_score) << 24 |
        uint64_t(e.variant) << 32);
    mix(uint64_t(std::bit_cast<uint32_t>(e.result)) | uint64_t(std::bit_cast<uint32_t>(e.score)) << 32);
    mix(std::bit_cast<uint32_t>(e.hand_eval));
  }
  for (size_t i = 0; i < data.inputs.size(); ++i) mix(data.inputs[i]);
  return h;
}

namespace {

constexpr char CHECKPOINT_MAGIC[4] = {'M', 'K', 'C', 'K'};
constexpr uint32_t CHECKPOINT_VERSION = 1;

template <typename T>
void put(std::string& out, const T& value) {
  write_raw(out, &value, 1);
}
template <typename T>
bool take(std::string_view& in, T& value) {
  return read_raw(in, &value, 1);
}

}  // namespace

std::string save_checkpoint(const TrainCheckpoint& c) {
  std::string out(CHECKPOINT_MAGIC, 4);
  put(out, CHECKPOINT_VERSION);
  put(out, uint64_t(FloatNetwork::SIZE));
  put(out, c.data);
  const TrainOptions& o = c.options;
  put(out, int32_t(o.epochs));
  put(out, int32_t(o.batch));
  put(out, o.seed);
  put(out, uint8_t(o.hold_out));
  put(out, uint8_t(o.residual));
  for (double x : {o.rate, o.decay, o.k, o.lambda, o.l2}) put(out, x);
  put(out, int32_t(c.epochs_done));
  put(out, c.step);
  put(out, c.rate);
  put(out, c.best_error);
  put(out, int32_t(c.report.best_epoch));
  put(out, c.report.initial_error);
  put(out, c.report.hand_written_error);
  put(out, uint32_t(c.report.train_error.size()));
  for (double x : c.report.train_error) put(out, x);
  for (double x : c.report.held_out_error) put(out, x);
  for (const std::vector<float>* a : {&c.w, &c.m, &c.v, &c.best}) write_raw(out, a->data(), a->size());
  return out;
}

bool load_checkpoint(std::string_view in, TrainCheckpoint& c, std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error) *error = why;
    return false;
  };
  char magic[4];
  uint32_t version;
  uint64_t size;
  if (!read_raw(in, magic, 4) || std::memcmp(magic, CHECKPOINT_MAGIC, 4) != 0)
    return fail("not a training checkpoint (no MKCK header)");
  if (!take(in, version) || version != CHECKPOINT_VERSION) return fail("an unknown checkpoint version");
  if (!take(in, size) || size != FloatNetwork::SIZE)
    return fail("a network of another size than this build's (" + std::to_string(FloatNetwork::SIZE) + " weights)");
  TrainOptions& o = c.options;
  int32_t epochs, batch, done, best_epoch;
  uint8_t hold_out, residual;
  uint32_t n;
  bool ok = take(in, c.data) && take(in, epochs) && take(in, batch) && take(in, o.seed) && take(in, hold_out) &&
            take(in, residual) && take(in, o.rate) && take(in, o.decay) && take(in, o.k) && take(in, o.lambda) &&
            take(in, o.l2) && take(in, done) && take(in, c.step) && take(in, c.rate) && take(in, c.best_error) &&
            take(in, best_epoch) && take(in, c.report.initial_error) && take(in, c.report.hand_written_error) &&
            take(in, n);
  if (!ok) return fail("the checkpoint is cut short");
  if (done < 0 || uint32_t(done) != n || best_epoch < -1 || best_epoch >= done)
    return fail("the checkpoint's epochs do not add up");
  o.epochs = epochs;
  o.batch = batch;
  o.hold_out = hold_out;
  o.residual = residual;
  c.epochs_done = done;
  c.report.best_epoch = best_epoch;
  c.report.train_error.assign(n, 0);
  c.report.held_out_error.assign(n, 0);
  for (double& x : c.report.train_error) ok = ok && take(in, x);
  for (double& x : c.report.held_out_error) ok = ok && take(in, x);
  for (std::vector<float>* a : {&c.w, &c.m, &c.v, &c.best}) {
    a->resize(FloatNetwork::SIZE);
    ok = ok && read_raw(in, a->data(), a->size());
  }
  if (!ok) return fail("the checkpoint is cut short");
  if (!in.empty()) return fail(std::to_string(in.size()) + " bytes after the checkpoint");
  return true;
}

bool can_resume(const TrainCheckpoint& c, const TrainData& data, const TrainOptions& o, std::string* why) {
  auto no = [&](const std::string& reason) {
    if (why) *why = reason;
    return false;
  };
  const TrainOptions& s = c.options;
  if (s.batch != o.batch || s.seed != o.seed || s.hold_out != o.hold_out || s.residual != o.residual ||
      s.rate != o.rate || s.decay != o.decay || s.k != o.k || s.lambda != o.lambda || s.l2 != o.l2)
    return no("it was made with other options (only --epochs may change)");
  if (c.data != data_fingerprint(data)) return no("it was made on other data");
  if (c.epochs_done > o.epochs)
    return no("it is past --epochs (" + std::to_string(c.epochs_done) + " epochs done)");
  return true;
}

TrainReport train(FloatNetwork& net, const TrainData& data, const TrainOptions& o, std::ostream* log,
                  const TrainCheckpoint* resume, const std::function<void(const TrainCheckpoint&)>& after_epoch) {
  TrainReport report;
  std::vector<uint32_t> training, held_out;
  for (uint32_t i = 0; i < data.entries.size(); ++i)
    (o.hold_out && (i / 1000) % 10 == 9 ? held_out : training).push_back(i);
  if (resume) {
    net.w = resume->w;
    report = resume->report;
  } else {
    if (o.residual && net.fresh)  // a correction starts at nothing
      std::fill(net.w.begin() + FloatNetwork::OUT_W, net.w.end(), 0.0f);
    report.initial_error = mean_error(net, data, training, o);
    const std::vector<uint32_t>& reference = held_out.empty() ? training : held_out;
    for (uint32_t i : reference) {
      const auto& e = data.entries[i];
      const double d = sigmoid(e.hand_eval * o.k / 400.0) - target_of(e, o);
      report.hand_written_error += d * d / double(reference.size());
    }
    // A network given to start from (fine-tuning) is itself a candidate: when
    // no epoch does better on the held-out positions, it is the one kept.
    if (!net.fresh && !held_out.empty()) report.start_held_out_error = mean_error(net, data, held_out, o);
  }
  if (log) {
    *log << "nnue: " << training.size() << " positions to train on, " << held_out.size()
         << " held out; error before training " << report.initial_error;
    if (report.start_held_out_error >= 0) *log << " (held out " << report.start_held_out_error << ")";
    *log << "; the hand-written evaluation's " << report.hand_written_error << "\n";
  }

  std::vector<float> grad(FloatNetwork::SIZE), m(FloatNetwork::SIZE), v(FloatNetwork::SIZE), best = net.w;
  double best_error = report.start_held_out_error >= 0 ? report.start_held_out_error : 1e300, rate = o.rate;
  const double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  int64_t step = 0;
  int first_epoch = 0;
  std::mt19937_64 rng(o.seed ^ 0x5eedULL);
  if (resume) {
    m = resume->m;
    v = resume->v;
    best = resume->best;
    best_error = resume->best_error;
    rate = resume->rate;
    step = resume->step;
    first_epoch = resume->epochs_done;
    // The order the stopped training had reached: each epoch shuffles the last one's.
    for (int e = 0; e < first_epoch; ++e) std::shuffle(training.begin(), training.end(), rng);
    if (log) *log << "nnue: going on after epoch " << first_epoch << "\n";
  }
  // A checkpoint to resume was checked against this data (can_resume): its fingerprint is this data's.
  const uint64_t fingerprint = !after_epoch ? 0 : resume ? resume->data : data_fingerprint(data);
  Pass p;
  for (int epoch = first_epoch; epoch < o.epochs; ++epoch) {
    const auto started = std::chrono::steady_clock::now();
    std::shuffle(training.begin(), training.end(), rng);
    double sum = 0;
    for (size_t from = 0; from < training.size(); from += size_t(o.batch)) {
      const size_t to = std::min(training.size(), from + size_t(o.batch));
      std::fill(grad.begin(), grad.end(), 0.0f);
      for (size_t k = from; k < to; ++k) {
        const auto& e = data.entries[training[k]];
        const uint16_t* in[2];
        int n[2];
        inputs_of(data, e, in, n);
        forward(net.w, in, n, e.bucket, p);
        const double s = expected_score(e, p.out, o), d = s - target_of(e, o);
        sum += d * d;
        backward(net.w, in, n, e.bucket, p,
                 float(2 * d * s * (1 - s) * (OUTPUT_SCALE * o.k / 400.0) / double(to - from)), grad);
      }
      ++step;
      const double c1 = 1 - std::pow(beta1, double(step)), c2 = 1 - std::pow(beta2, double(step));
      for (size_t i = 0; i < FloatNetwork::SIZE; ++i) {
        m[i] = float(beta1 * m[i] + (1 - beta1) * grad[i]);
        v[i] = float(beta2 * v[i] + (1 - beta2) * double(grad[i]) * grad[i]);
        net.w[i] -= float(rate * ((m[i] / c1) / (std::sqrt(v[i] / c2) + eps) + o.l2 * net.w[i]));
      }
      // The dense layers stay within what int8 (the first) and int16 (the others) hold once quantised.
      auto limit = [&](size_t from, size_t to, float lim) {
        for (size_t i = from; i < to; ++i) net.w[i] = std::clamp(net.w[i], -lim, lim);
      };
      limit(FloatNetwork::L1_W, FloatNetwork::L1_B, FloatNetwork::L1_LIMIT);
      limit(FloatNetwork::L2_W, FloatNetwork::L2_B, FloatNetwork::DENSE_LIMIT);
      limit(FloatNetwork::OUT_W, FloatNetwork::OUT_B, FloatNetwork::DENSE_LIMIT);
    }
    rate *= o.decay;
    const double train_error = training.empty() ? 0 : sum / double(training.size());
    const double held = held_out.empty() ? train_error : mean_error(net, data, held_out, o);
    report.train_error.push_back(train_error);
    report.held_out_error.push_back(held);
    if (held < best_error) best_error = held, best = net.w, report.best_epoch = epoch;
    if (log) {
      const double secs =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      *log << "nnue: epoch " << epoch + 1 << ": training error " << train_error << ", held out " << held << " ("
           << secs << " s)\n";
    }
    if (after_epoch) {
      TrainCheckpoint c;
      c.data = fingerprint;
      c.options = o;
      c.epochs_done = epoch + 1;
      c.step = step;
      c.rate = rate;
      c.best_error = best_error;
      c.report = report;
      c.w = net.w;
      c.m = m;
      c.v = v;
      c.best = best;
      after_epoch(c);
    }
  }
  net.w = best;
  return report;
}

int run_train_command(const TrainCommand& c, std::ostream& log) {
  Variant default_variant;
  if (!parse_variant(c.variant, default_variant)) {
    log << "makruk nnue-train: unknown variant '" << c.variant << "'\n";
    return 2;
  }
  if (c.data.empty() || c.out.empty()) {
    log << "makruk nnue-train: needs --data FILE and --out FILE\n";
    return 2;
  }
  if (!c.init.empty() && !c.resume.empty()) {
    log << "makruk nnue-train: --init and --resume: a checkpoint already holds its weights, give one or the other\n";
    return 2;
  }
  FloatNetwork net(c.options.seed);
  uint8_t start_variants = 0;  // the games the network started from was made for: it keeps them
  if (!c.init.empty()) {
    std::string error;
    auto start = load_file(c.init, &error);
    if (!start && error.empty()) error = "cannot read it";
    if (start && start->residual != c.options.residual)
      error = start->residual ? "a residual network: train it with --residual"
                              : "not a residual network: train it without --residual";
    if (!error.empty()) {
      log << "makruk nnue-train: --init " << c.init << ": " << error << "\n";
      return 1;
    }
    net = FloatNetwork::from(*start);
    start_variants = start->variants;
    log << "nnue: starting from the weights of " << c.init << "\n";
  }
  TrainData data;
  for (const std::string& spec : c.data) {
    // "ouk:FILE" or "makruk:FILE" reads a file of the other variant.
    Variant variant = default_variant;
    std::string path = spec;
    if (auto colon = spec.find(':'); colon != std::string::npos && parse_variant(spec.substr(0, colon), variant))
      path = spec.substr(colon + 1);
    else
      variant = default_variant;
    std::ifstream in(path);
    std::string error;
    const size_t before = data.entries.size();
    if (!in || !load_train_data(in, variant, c.max_positions, data, &error, c.mirror)) {
      log << "makruk nnue-train: " << path << ": " << (in ? error : "cannot read") << "\n";
      return 1;
    }
    log << "nnue: " << path << ": " << data.entries.size() - before << " positions with pawns\n";
  }
  if (data.entries.empty()) {
    log << "makruk nnue-train: no positions with pawns to train on\n";
    return 1;
  }
  TrainCheckpoint resume;
  if (!c.resume.empty()) {
    std::string bytes, why;
    if (!read_file(c.resume, bytes)) why = "cannot read it";
    else if (load_checkpoint(bytes, resume, &why)) can_resume(resume, data, c.options, &why);
    if (!why.empty()) {
      log << "makruk nnue-train: --resume " << c.resume << ": " << why << "\n";
      return 1;
    }
  }
  bool saved = true;
  auto save_state = [&](const TrainCheckpoint& state) {
    // Written beside and renamed, so that a stop while writing leaves the last one whole.
    const std::string tmp = c.checkpoint + ".tmp";
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << save_checkpoint(state);
    out.close();
    if (!out || std::rename(tmp.c_str(), c.checkpoint.c_str()) != 0) {
      log << "makruk nnue-train: cannot write the checkpoint " << c.checkpoint << "\n";
      saved = false;
    }
  };
  const TrainReport r = train(net, data, c.options, &log, c.resume.empty() ? nullptr : &resume,
                              c.checkpoint.empty() ? std::function<void(const TrainCheckpoint&)>() : save_state);
  auto quantised = net.quantise();
  quantised->residual = c.options.residual;
  quantised->variants = start_variants;
  for (const auto& e : data.entries) quantised->variants |= Variant(e.variant) == Variant::Makruk ? 1 : 2;
  std::ofstream out(c.out, std::ios::binary);
  out << save(*quantised);
  if (!out) {
    log << "makruk nnue-train: cannot write " << c.out << "\n";
    return 1;
  }
  log << "nnue: wrote " << c.out << " (epoch " << r.best_epoch + 1
      << (r.best_epoch < 0 && r.start_held_out_error >= 0 && c.options.epochs > 0
              ? ": the network it started from, no epoch did better on the held-out positions"
              : "")
      << ")\n";
  return saved ? 0 : 1;
}

}  // namespace makruk::engine::nnue
