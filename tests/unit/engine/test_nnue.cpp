// The learned evaluation: its quantised inference against a straightforward
// reference written here, incremental accumulators against a full refresh
// along random games (moves made and unmade), the AVX2 code against the
// scalar code, the file format, the float network against its quantised
// copy, the trainer (its error falls, and it is reproducible), and the search
// with a network (its lazily updated accumulators, its scores, UCI's EvalFile).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <random>
#include <set>
#include <sstream>

#include "core/movegen.h"
#include "core/position.h"
#include "engine/default_network.h"
#include "engine/nnue.h"
#include "engine/nnue_train.h"
#include "engine/search.h"
#include "engine/uci.h"

using namespace makruk;
using namespace makruk::engine;
using namespace makruk::engine::nnue;

namespace {

// A network of random weights within the ranges a trained one has.
std::unique_ptr<Network> random_network(uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto net = std::make_unique<Network>();
  auto in = [&](int lo, int hi) { return lo + int(rng() % uint64_t(hi - lo + 1)); };
  for (auto& w : net->ft_weights) w = int16_t(in(-600, 600));
  for (auto& b : net->ft_bias) b = int16_t(in(-300, 800));
  for (auto& w : net->l1_weights) w = int8_t(in(-128, 127));
  for (auto& b : net->l1_bias) b = in(-20000, 20000);
  for (auto& w : net->l2_weights) w = int16_t(in(-16384, 16384));
  for (auto& b : net->l2_bias) b = in(-8000000, 8000000);
  for (auto& w : net->out_weights) w = int16_t(in(-600, 600));
  for (auto& b : net->out_bias) b = in(-2000000, 2000000);
  return net;
}

Position start(Variant v) {
  Position pos;
  std::string error;
  EXPECT_TRUE(pos.set(Position::start_fen(v), v, Counting::Automatic, &error)) << error;
  return pos;
}

// The network's definition, written out plainly: every square looked at, the
// board turned over for Black, sums in 32 bits, nothing kept between calls.
int reference_eval(const Network& net, const Position& pos) {
  int32_t acc[2][HIDDEN];
  for (int c = 0; c < 2; ++c) {
    // The zone of the perspective's own king (one zone in the default build):
    // ranks 1, 2, 3+ and files d-e, c-f, the wings, seen from its own side.
    int zone = 0;
    for (Square s = 0; s < 64; ++s)
      if (pos.piece_on(s) == make_piece(Color(c), KING)) {
        const int rank = c == 0 ? rank_of(s) : 7 - rank_of(s), file = file_of(s);
        const int ranks = std::min(rank, 2), centre = file == 3 || file == 4 ? 0 : 1;
        const int files = centre == 0 ? 0 : file == 2 || file == 5 ? 1 : 2;
        zone = KING_ZONES == 1 ? 0 : KING_ZONES == 2 ? centre : KING_ZONES == 3 ? ranks
             : KING_ZONES == 6 ? ranks * 2 + centre : ranks * 3 + files;
      }
    std::vector<int> on;
    for (Square s = 0; s < 64; ++s) {
      const Piece p = pos.piece_on(s);
      if (p == NO_PIECE) continue;
      const int own = color_of(p) == c ? 0 : 1;
      const int sq = c == 0 ? s : (7 - rank_of(s)) * 8 + file_of(s);
      on.push_back(zone * 896 + (int(type_of(p)) - 1) * 128 + own * 64 + sq);
    }
    const uint8_t r = pos.rights();
    const bool white = c == 0;
    const int rights = KING_ZONES * 896;
    if (r & (white ? WHITE_KING_RIGHT : BLACK_KING_RIGHT)) on.push_back(rights + 0);
    if (r & (white ? WHITE_NEANG_RIGHT : BLACK_NEANG_RIGHT)) on.push_back(rights + 1);
    if (r & (white ? BLACK_KING_RIGHT : WHITE_KING_RIGHT)) on.push_back(rights + 2);
    if (r & (white ? BLACK_NEANG_RIGHT : WHITE_NEANG_RIGHT)) on.push_back(rights + 3);
    if (pos.variant() == Variant::Ouk) on.push_back(rights + 4);
    for (int j = 0; j < HIDDEN; ++j) {
      acc[c][j] = net.ft_bias[j];
      for (int f : on) acc[c][j] += net.ft_weights[f * HIDDEN + j];
    }
  }
  // The accumulators count in 1/1016; the activations in 1/127, rounded.
  auto clip = [](int32_t v) { return std::min(127, std::max(0, int32_t(std::floor((v + 4) / 8.0)))); };
  const int us = pos.side_to_move(), them = 1 - us;
  int32_t x[2 * HIDDEN];
  for (int j = 0; j < HIDDEN; ++j) x[j] = clip(acc[us][j]), x[HIDDEN + j] = clip(acc[them][j]);
  // Past the first layer, activations are in units of 1 / 1016 (the first
  // layer's sums are in 1 / (127 × 128)); sums in 64 bits here. The dense
  // layers are those of the position's number of pieces: 2–32 in BUCKETS ranges.
  int pieces = 0;
  for (Square s = 0; s < 64; ++s) pieces += pos.piece_on(s) != NO_PIECE;
  const int b = (pieces - 1) * BUCKETS / 32;
  auto to_nearest = [](int64_t s, int shift) { return int64_t(std::floor((double(s) + (1 << (shift - 1))) / (1 << shift))); };
  int64_t h1[L1], h2[L2];
  for (int o = 0; o < L1; ++o) {
    int64_t s = net.l1_bias[b * L1 + o];
    for (int i = 0; i < 2 * HIDDEN; ++i) s += x[i] * net.l1_weights[(b * L1 + o) * 2 * HIDDEN + i];
    h1[o] = std::min<int64_t>(1016, std::max<int64_t>(0, to_nearest(s, 4)));
  }
  for (int o = 0; o < L2; ++o) {
    int64_t s = net.l2_bias[b * L2 + o];
    for (int i = 0; i < L1; ++i) s += h1[i] * net.l2_weights[(b * L2 + o) * L1 + i];
    h2[o] = std::min<int64_t>(1016, std::max<int64_t>(0, to_nearest(s, 10)));
  }
  int64_t out = net.out_bias[b];
  for (int i = 0; i < L2; ++i) out += h2[i] * net.out_weights[b * L2 + i];
  return int(out * 400 / (1016 * 1024));
}

// Random games of both variants, promotions and Ouk's first moves included;
// calls f(position) after every move.
template <typename F>
void random_games(int games, uint64_t seed, F&& f) {
  std::mt19937_64 rng(seed);
  for (Variant v : {Variant::Makruk, Variant::Ouk})
    for (int g = 0; g < games; ++g) {
      Position pos = start(v);
      for (int ply = 0; ply < 160; ++ply) {
        MoveList list;
        generate_legal(pos, list);
        if (list.size == 0) break;
        Move m = list.moves[rng() % uint64_t(list.size)];
        for (Move c : list)  // captures and promotions now and then, so that endings come
          if ((pos.piece_on(c.to()) != NO_PIECE || c.is_promotion()) && rng() % 2) m = c;
        pos.do_move(m);
        f(pos);
      }
    }
}

void expect_same(const Accumulator& a, const Accumulator& b, const char* what) {
  for (int c = 0; c < 2; ++c)
    for (int j = 0; j < HIDDEN; ++j) ASSERT_EQ(a.v[c][j], b.v[c][j]) << what << ": perspective " << c << ", " << j;
}

}  // namespace

TEST(Nnue, InputsAreTheBoardSeenFromEachSide) {
  const Position pos = start(Variant::Ouk);
  int white[MAX_ACTIVE], black[MAX_ACTIVE];
  ASSERT_EQ(active_inputs(pos, WHITE, white), 32 + 4 + 1);
  ASSERT_EQ(active_inputs(pos, BLACK, black), 32 + 4 + 1);
  // The start is not symmetric (kings and mets face each other), but each side's
  // own pawns are on its third rank, seen from itself.
  const Piece wp = make_piece(WHITE, PAWN), bp = make_piece(BLACK, PAWN);
  EXPECT_EQ(piece_input(WHITE, wp, make_square(0, 2)), piece_input(BLACK, bp, make_square(0, 5)));
  EXPECT_EQ(piece_input(WHITE, bp, make_square(4, 5)), piece_input(BLACK, wp, make_square(4, 2)));
  EXPECT_NE(piece_input(WHITE, wp, 0), piece_input(WHITE, bp, 0));
  EXPECT_EQ(active_inputs(start(Variant::Makruk), WHITE, white), 32);
}

TEST(Nnue, QuantisedInferenceMatchesTheReference) {
#if defined(__x86_64__)
  // Where the CPU has AVX2 the comparisons below check that code against the scalar code.
  EXPECT_EQ(uses_avx2(), bool(__builtin_cpu_supports("avx2")));
#endif
  for (uint64_t seed : {1, 2, 3}) {
    auto net = random_network(seed);
    int checked = 0;
    std::vector<Value> spread;
    random_games(3, seed, [&](const Position& pos) {
      Accumulator acc;
      refresh(*net, pos, acc);
      const int want = reference_eval(*net, pos);
      ASSERT_EQ(evaluate(*net, acc, pos.side_to_move(), bucket_of(pos)), want) << pos.fen();
      force_scalar(true);
      ASSERT_EQ(evaluate(*net, acc, pos.side_to_move(), bucket_of(pos)), want) << pos.fen() << " (scalar)";
      Accumulator scalar;
      refresh(*net, pos, scalar);
      force_scalar(false);
      expect_same(acc, scalar, "AVX2 against scalar");
      spread.push_back(want);
      ++checked;
    });
    EXPECT_GT(checked, 500);
    // The random networks give many different values: the comparison means something.
    std::sort(spread.begin(), spread.end());
    EXPECT_GT(std::unique(spread.begin(), spread.end()) - spread.begin(), 50);
  }
}

TEST(Nnue, IncrementalAccumulatorsAgreeWithARefreshAfterMovesAndUndos) {
  auto net = random_network(7);
  std::mt19937_64 rng(11);
  for (bool scalar : {false, true}) {
    force_scalar(scalar);
    for (Variant v : {Variant::Makruk, Variant::Ouk})
      for (int game = 0; game < 20; ++game) {
        Position pos = start(v);
        std::vector<Accumulator> stack(1);
        refresh(*net, pos, stack[0]);
        for (int step = 0; step < 300; ++step) {
          MoveList list;
          generate_legal(pos, list);
          // Mostly forward, sometimes back, so that undone moves are followed by others.
          if ((list.size == 0 || rng() % 4 == 0) && stack.size() > 1) {
            pos.undo_move();
            stack.pop_back();
          } else if (list.size > 0) {
            Move m = list.moves[rng() % uint64_t(list.size)];
            for (Move c : list)
              if ((pos.piece_on(c.to()) != NO_PIECE || c.is_promotion()) && rng() % 3 == 0) m = c;
            if (rng() % 10 == 0 && !pos.in_check()) {
              pos.do_null_move();
              stack.push_back(stack.back());
              ASSERT_EQ(last_move_delta(pos).n_removed + last_move_delta(pos).n_added, 0);
              pos.undo_null_move();
              stack.pop_back();
            }
            pos.do_move(m);
            stack.emplace_back();
            update(*net, stack[stack.size() - 2], last_move_delta(pos), stack.back());
          } else {
            break;
          }
          Accumulator fresh;
          refresh(*net, pos, fresh);
          expect_same(stack.back(), fresh, "incremental against refresh");
          ASSERT_EQ(evaluate(*net, stack.back(), pos.side_to_move(), bucket_of(pos)), reference_eval(*net, pos));
        }
      }
    force_scalar(false);
  }
}

TEST(Nnue, TheFileRoundTripsAndBadFilesAreRefused) {
  auto net = random_network(3);
  const std::string bytes = save(*net);
  std::string error;
  auto back = load(bytes, &error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(save(*back), bytes);
  const Position pos = start(Variant::Makruk);
  Accumulator a, b;
  refresh(*net, pos, a);
  refresh(*back, pos, b);
  for (int k = 0; k < BUCKETS; ++k) EXPECT_EQ(evaluate(*net, a, WHITE, k), evaluate(*back, b, WHITE, k));

  EXPECT_FALSE(load("", &error));
  EXPECT_NE(error.find("MKNN"), std::string::npos);
  EXPECT_FALSE(load(bytes.substr(0, bytes.size() - 1), &error));
  EXPECT_NE(error.find("cut short"), std::string::npos);
  EXPECT_FALSE(load(bytes + "x", &error));
  EXPECT_NE(error.find("after the weights"), std::string::npos);
  std::string other = bytes;
  other[4] = 9;  // the format version
  EXPECT_FALSE(load(other, &error));
  EXPECT_NE(error.find("version"), std::string::npos);
  other = bytes;
  other[12] = 1;  // HIDDEN
  EXPECT_FALSE(load(other, &error));
  EXPECT_NE(error.find("layer sizes"), std::string::npos);
  EXPECT_FALSE(load(bytes.substr(0, 10), &error));
  other = bytes;
  other[24] = 8;  // flags: bits 0-2 are known
  EXPECT_FALSE(load(other, &error));
  EXPECT_NE(error.find("flags"), std::string::npos);
  other[24] = 1;  // residual, but for no variant
  EXPECT_FALSE(load(other, &error));
  EXPECT_NE(error.find("no variant"), std::string::npos);
  net->variants = 2;
  back = load(save(*net), &error);
  ASSERT_TRUE(back) << error;
  EXPECT_FALSE(back->plays(Variant::Makruk));
  EXPECT_TRUE(back->plays(Variant::Ouk));
  net->variants = 3;
  // Weights or biases beyond what the sums hold are refused.
  auto wide = std::make_unique<Network>(*net);
  wide->out_weights[3] = 20000;
  EXPECT_FALSE(load(save(*wide), &error));
  EXPECT_NE(error.find("dense weight"), std::string::npos);
  wide = std::make_unique<Network>(*net);
  wide->l1_bias[0] = 1 << 30;
  EXPECT_FALSE(load(save(*wide), &error));
  EXPECT_NE(error.find("bias"), std::string::npos);
  net->residual = true;
  back = load(save(*net), &error);
  ASSERT_TRUE(back) << error;
  EXPECT_TRUE(back->residual);
}

TEST(Nnue, AFileOfOneSetOfDenseLayersServesEveryBucket) {
  // Format version 6 has no count of sets: one set, which a build with more
  // gives to every bucket (the same evaluation whatever the number of pieces).
  auto net = random_network(8);
  std::string v6("MKNN", 4);
  auto put = [&](const void* p, size_t n) { v6.append(static_cast<const char*>(p), n); };
  const uint32_t header[6] = {6, INPUTS, HIDDEN, L1, L2, 6};
  put(header, sizeof header);
  put(net->ft_weights, sizeof net->ft_weights);
  put(net->ft_bias, sizeof net->ft_bias);
  // The first of each dense array's sets.
  put(net->l1_weights, L1 * 2 * HIDDEN * sizeof net->l1_weights[0]);
  put(net->l1_bias, L1 * sizeof net->l1_bias[0]);
  put(net->l2_weights, L2 * L1 * sizeof net->l2_weights[0]);
  put(net->l2_bias, L2 * sizeof net->l2_bias[0]);
  put(net->out_weights, L2 * sizeof net->out_weights[0]);
  put(net->out_bias, sizeof net->out_bias[0]);
  std::string error;
  auto one = load(v6, &error);
  ASSERT_TRUE(one) << error;
  const Position pos = start(Variant::Makruk);
  Accumulator a, b;
  refresh(*net, pos, a);
  refresh(*one, pos, b);
  for (int k = 0; k < BUCKETS; ++k) EXPECT_EQ(evaluate(*one, b, WHITE, k), evaluate(*net, a, WHITE, 0));
  EXPECT_FALSE(load(v6.substr(0, v6.size() - 1), &error));
  EXPECT_NE(error.find("cut short"), std::string::npos);

  // Another number of sets than one or this build's is refused, saying so.
  std::string other = save(*net);
  other[28] = char(BUCKETS + 1);
  EXPECT_FALSE(load(other, &error));
  EXPECT_NE(error.find("sets of dense layers"), std::string::npos);
}

namespace {

// Positions of random games with a target the network can learn: the material
// balance (pawn 1, met 2, khon 3, knight 3, rook 5) as a win probability.
int material_balance(const Position& pos) {
  static const int value[] = {0, 1, 2, 3, 3, 5, 0, 2};
  int balance = 0;
  for (Square s = 0; s < 64; ++s)
    if (Piece p = pos.piece_on(s); p != NO_PIECE) balance += (color_of(p) == WHITE ? 1 : -1) * value[type_of(p)];
  return balance;
}

TrainData material_fixture(int games, uint64_t seed) {
  TrainData data;
  random_games(games, seed, [&](const Position& pos) {
    if (!pos.pieces(PAWN)) return;
    const double result = 1.0 / (1.0 + std::exp(-0.5 * material_balance(pos)));
    add_position(pos, result, 0, false, data);
  });
  return data;
}

TrainOptions material_options() {
  TrainOptions o;
  o.epochs = 8;
  o.batch = 64;
  o.rate = 3e-3;
  o.k = 1.0;
  o.hold_out = false;
  return o;
}

const TrainData& material_data() {
  // Each set of dense layers sees as much, and with king zones each zone more.
  static const TrainData data = material_fixture(20 * BUCKETS * (KING_ZONES > 1 ? 2 : 1), 9);
  return data;
}

// Trained once, for the tests below.
const FloatNetwork& material_network(TrainReport* report = nullptr) {
  static TrainReport r;
  static const FloatNetwork net = [] {
    FloatNetwork n(1);
    r = train(n, material_data(), material_options(), nullptr);
    return n;
  }();
  if (report) *report = r;
  return net;
}

}  // namespace

TEST(Nnue, TrainingLowersTheErrorAndIsReproducible) {
  const TrainData& data = material_data();
  ASSERT_GT(data.entries.size(), 3000u);
  TrainReport ra;
  const FloatNetwork& a = material_network(&ra);
  ASSERT_EQ(ra.train_error.size(), 8u);
  EXPECT_LT(ra.train_error.back(), ra.initial_error * 0.3) << "from " << ra.initial_error;
  for (size_t i = 1; i < ra.train_error.size(); ++i) EXPECT_LE(ra.train_error[i], ra.train_error[i - 1] * 1.05);

  FloatNetwork b(1);  // the same seed, the same network
  const TrainReport rb = train(b, data, material_options(), nullptr);
  EXPECT_EQ(a.w, b.w);
  EXPECT_EQ(ra.train_error, rb.train_error);
  FloatNetwork c(2);  // another seed, another network
  train(c, data, material_options(), nullptr);
  EXPECT_NE(a.w, c.w);

  // What it learnt survives quantisation: on positions of other games, the
  // quantised network's value (White's side) follows the material balance.
  auto q = a.quantise();
  std::vector<double> values, balances;
  random_games(4, 99, [&](const Position& pos) {
    if (!pos.pieces(PAWN)) return;
    Accumulator acc;
    refresh(*q, pos, acc);
    const Value v = evaluate(*q, acc, pos.side_to_move(), bucket_of(pos));
    values.push_back(pos.side_to_move() == WHITE ? v : -v);
    balances.push_back(material_balance(pos));
  });
  ASSERT_GT(values.size(), 500u);
  const double n = double(values.size());
  const double mv = std::accumulate(values.begin(), values.end(), 0.0) / n;
  const double mb = std::accumulate(balances.begin(), balances.end(), 0.0) / n;
  double cov = 0, vv = 0, vb = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    cov += (values[i] - mv) * (balances[i] - mb);
    vv += (values[i] - mv) * (values[i] - mv);
    vb += (balances[i] - mb) * (balances[i] - mb);
  }
  EXPECT_GT(cov / std::sqrt(vv * vb), 0.8);
}

TEST(Nnue, AStoppedTrainingGoesOnFromItsCheckpointToTheSameNetwork) {
  const TrainData& data = material_data();
  TrainOptions o = material_options();
  o.epochs = 5;
  o.decay = 0.8;
  FloatNetwork straight(1);
  const TrainReport rs = train(straight, data, o, nullptr);

  // Stopped after two epochs, its state saved after each.
  TrainOptions two = o;
  two.epochs = 2;
  std::vector<TrainCheckpoint> saved;
  FloatNetwork stopped(1);
  train(stopped, data, two, nullptr, nullptr, [&](const TrainCheckpoint& c) { saved.push_back(c); });
  ASSERT_EQ(saved.size(), 2u);
  EXPECT_EQ(saved[1].epochs_done, 2);
  const std::string bytes = save_checkpoint(saved[1]);
  TrainCheckpoint back;
  std::string error;
  ASSERT_TRUE(load_checkpoint(bytes, back, &error)) << error;
  ASSERT_TRUE(can_resume(back, data, o, &error)) << error;

  // Going on from the file (the network's own first weights do not matter) ends
  // where the training that never stopped ended, to the bit.
  FloatNetwork resumed(7);
  const TrainReport rr = train(resumed, data, o, nullptr, &back);
  EXPECT_EQ(resumed.w, straight.w);
  EXPECT_EQ(rr.train_error, rs.train_error);
  EXPECT_EQ(rr.held_out_error, rs.held_out_error);
  EXPECT_EQ(rr.best_epoch, rs.best_epoch);
  EXPECT_EQ(rr.initial_error, rs.initial_error);

  // Refused: other options, other data, fewer epochs than were done, bad files.
  TrainOptions faster = o;
  faster.rate *= 2;
  EXPECT_FALSE(can_resume(back, data, faster, &error));
  EXPECT_NE(error.find("options"), std::string::npos) << error;
  EXPECT_FALSE(can_resume(back, material_fixture(3, 5), o, &error));
  EXPECT_NE(error.find("data"), std::string::npos) << error;
  TrainOptions one = o;
  one.epochs = 1;
  EXPECT_FALSE(can_resume(back, data, one, &error));
  TrainCheckpoint bad;
  EXPECT_FALSE(load_checkpoint(bytes.substr(0, bytes.size() - 1), bad, &error));
  EXPECT_NE(error.find("cut short"), std::string::npos) << error;
  for (size_t cut = 0; cut < 240; ++cut)  // every cut through the header and the errors
    EXPECT_FALSE(load_checkpoint(bytes.substr(0, cut), bad, &error)) << cut;
  EXPECT_FALSE(load_checkpoint(bytes + "x", bad, &error));
  EXPECT_FALSE(load_checkpoint("MKNN" + bytes.substr(4), bad, &error));
  std::string other_size = bytes;
  other_size[8] ^= 1;  // the weight count, after the magic and the version
  EXPECT_FALSE(load_checkpoint(other_size, bad, &error));
  EXPECT_NE(error.find("size"), std::string::npos) << error;
}

TEST(Nnue, TheTrainCommandResumesFromItsCheckpointFile) {
  // Self-play lines of random Makruk games; a network trained in one go and one
  // trained in two runs (stopped, then resumed from the checkpoint file) are the
  // same file.
  const std::string dir = ::testing::TempDir();
  const std::string lines = dir + "/resume-data.txt", whole = dir + "/whole.nnue", parts = dir + "/parts.nnue",
                    state = dir + "/train.ckpt";
  {
    std::ofstream out(lines);
    random_games(4, 21, [&](const Position& pos) {
      if (pos.variant() != Variant::Makruk || !pos.pieces(PAWN)) return;
      const int balance = material_balance(pos);
      out << pos.fen() << ";" << (balance > 0 ? "1" : balance < 0 ? "0" : "0.5") << ";" << 100 * balance << "\n";
    });
  }
  auto command = [&](int epochs, const std::string& net) {
    TrainCommand c;
    c.data = {lines};
    c.out = net;
    c.options.epochs = epochs;
    c.options.batch = 32;
    c.options.lambda = 0;
    return c;
  };
  std::ostringstream log;
  ASSERT_EQ(run_train_command(command(3, whole), log), 0) << log.str();
  std::remove(state.c_str());
  TrainCommand first = command(1, parts);
  first.checkpoint = state;
  ASSERT_EQ(run_train_command(first, log), 0) << log.str();
  TrainCommand second = command(3, parts);
  second.resume = state;
  second.checkpoint = state;
  ASSERT_EQ(run_train_command(second, log), 0) << log.str();
  EXPECT_NE(log.str().find("going on after epoch 1"), std::string::npos) << log.str();
  auto read = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  EXPECT_EQ(read(parts), read(whole));
  TrainCheckpoint last;
  std::string error;
  ASSERT_TRUE(load_checkpoint(read(state), last, &error)) << error;
  EXPECT_EQ(last.epochs_done, 3);

  // Another rate: refused, and the network file is left as it was.
  TrainCommand other = command(4, parts);
  other.resume = state;
  other.options.rate = 0.01;
  std::ostringstream refused;
  EXPECT_EQ(run_train_command(other, refused), 1);
  EXPECT_NE(refused.str().find("other options"), std::string::npos) << refused.str();
  EXPECT_EQ(read(parts), read(whole));
  TrainCommand missing = command(4, parts);
  missing.resume = dir + "/no-such.ckpt";
  EXPECT_EQ(run_train_command(missing, refused), 1);
  for (const std::string& f : {lines, whole, parts, state}) std::remove(f.c_str());
}

// Fine-tuning: the network a training starts from is itself a candidate, so
// epochs that only do worse on the held-out positions give it back unchanged,
// also through a checkpoint; a fresh network is not one (its best epoch is
// kept however it does).
TEST(Nnue, AFineTuningThatOnlyDoesWorseKeepsTheNetworkItStartedFrom) {
  const TrainData data = material_fixture(120, 12);
  ASSERT_GE(data.entries.size(), 10000u) << "too few positions for a held-out tenth";
  TrainOptions o = material_options();
  o.hold_out = true;
  o.epochs = 2;
  o.rate = 0.2;  // far too large a step: every epoch spoils the network
  FloatNetwork from = FloatNetwork::from(*material_network().quantise());
  const std::vector<float> start = from.w;
  FloatNetwork as_fresh = from;  // the same weights, taken as a random start
  as_fresh.fresh = true;
  std::vector<TrainCheckpoint> saved;
  const TrainReport r = train(from, data, o, nullptr, nullptr, [&](const TrainCheckpoint& c) { saved.push_back(c); });
  ASSERT_EQ(r.held_out_error.size(), 2u);
  ASSERT_GT(r.start_held_out_error, 0);
  for (double e : r.held_out_error) EXPECT_GT(e, r.start_held_out_error);  // finite and worse
  EXPECT_EQ(r.best_epoch, -1);
  EXPECT_TRUE(from.w == start);

  // Stopped after the first epoch and resumed to three: the same as a training of three.
  ASSERT_EQ(saved.size(), 2u);
  TrainCheckpoint back;
  std::string error;
  ASSERT_TRUE(load_checkpoint(save_checkpoint(saved[0]), back, &error)) << error;
  EXPECT_EQ(back.report.best_epoch, -1);
  EXPECT_TRUE(back.best == start);
  TrainOptions three = o;
  three.epochs = 3;
  ASSERT_TRUE(can_resume(back, data, three, &error)) << error;
  FloatNetwork resumed(7), straight = FloatNetwork::from(*material_network().quantise());
  const TrainReport rr = train(resumed, data, three, nullptr, &back);
  const TrainReport rs = train(straight, data, three, nullptr);
  EXPECT_EQ(rr.best_epoch, rs.best_epoch);
  EXPECT_EQ(rr.held_out_error, rs.held_out_error);
  EXPECT_TRUE(resumed.w == straight.w);
  EXPECT_TRUE(resumed.w == start);

  // Taken as a random start, the same weights give way to the best epoch.
  const TrainReport f = train(as_fresh, data, o, nullptr);
  EXPECT_LT(f.start_held_out_error, 0);
  EXPECT_GE(f.best_epoch, 0);
  EXPECT_FALSE(as_fresh.w == start);
}

// Fine-tuning: a network's weights, taken back as floats, quantise to the same
// network; training from them starts from what the network knows; the command
// refuses what cannot be a start.
TEST(Nnue, TrainingStartsFromANetworkAndKeepsWhatItKnows) {
  const auto builtin = default_network();
  ASSERT_TRUE(builtin);
  auto back = FloatNetwork::from(*builtin).quantise();
  back->residual = builtin->residual;
  back->variants = builtin->variants;
  EXPECT_EQ(save(*back), save(*builtin));
  // A training of no epochs from it leaves it as it is (a residual network's output is not
  // set to nothing as a random one's is).
  TrainOptions none = material_options();
  none.epochs = 0;
  none.residual = builtin->residual;
  FloatNetwork kept = FloatNetwork::from(*builtin);
  train(kept, material_data(), none, nullptr);
  auto kept_back = kept.quantise();
  kept_back->residual = builtin->residual;
  kept_back->variants = builtin->variants;
  EXPECT_EQ(save(*kept_back), save(*builtin));

  // The material network, quantised and taken back, starts where its training ended;
  // random weights start far from it. One more epoch at a small step keeps it there.
  TrainReport trained;
  const FloatNetwork& learnt = material_network(&trained);
  TrainOptions o = material_options();
  o.epochs = 1;
  o.rate = 3e-4;
  FloatNetwork from = FloatNetwork::from(*learnt.quantise());
  EXPECT_FALSE(from.fresh);
  const TrainReport tuned = train(from, material_data(), o, nullptr);
  FloatNetwork fresh(1);
  const TrainReport scratch = train(fresh, material_data(), o, nullptr);
  EXPECT_LT(tuned.initial_error, trained.train_error.back() * 1.2) << trained.train_error.back();
  EXPECT_LT(tuned.initial_error, scratch.initial_error * 0.3) << scratch.initial_error;
  EXPECT_LT(tuned.train_error.back(), trained.train_error.back() * 1.2);
  EXPECT_LT(tuned.train_error.back(), scratch.train_error.back());

  // The command: a residual network needs --residual (and the other way round), a file
  // that is not a network and a missing one are refused, and --init with --resume is.
  const std::string dir = ::testing::TempDir();
  const std::string lines = dir + "/init-data.txt", start = dir + "/init-start.nnue", out = dir + "/init-out.nnue";
  {
    std::ofstream data(lines);
    random_games(2, 31, [&](const Position& pos) {
      if (pos.variant() != Variant::Makruk || !pos.pieces(PAWN)) return;
      data << pos.fen() << ";0.5;" << 100 * material_balance(pos) << "\n";
    });
    // Made for both games: fine-tuned on Makruk games alone, it stays one for both.
    Network for_both = *builtin;
    for_both.variants = 3;
    std::ofstream net(start, std::ios::binary);
    net << save(for_both);
  }
  auto command = [&](bool residual) {
    TrainCommand c;
    c.data = {lines};
    c.out = out;
    c.init = start;
    c.options.epochs = 1;
    c.options.lambda = 0;
    c.options.residual = residual;
    return c;
  };
  std::ostringstream log;
  EXPECT_EQ(run_train_command(command(builtin->residual), log), 0) << log.str();
  std::string error;
  const auto tuned_net = load_file(out, &error);
  ASSERT_TRUE(tuned_net) << error;
  EXPECT_EQ(tuned_net->variants, 3);
  std::ostringstream wrong;
  EXPECT_EQ(run_train_command(command(!builtin->residual), wrong), 1);
  EXPECT_NE(wrong.str().find("--residual"), std::string::npos) << wrong.str();
  TrainCommand both = command(builtin->residual);
  both.resume = dir + "/init.ckpt";
  EXPECT_EQ(run_train_command(both, wrong), 2);
  TrainCommand not_a_net = command(builtin->residual);
  not_a_net.init = lines;
  std::ostringstream refused;
  EXPECT_EQ(run_train_command(not_a_net, refused), 1);
  EXPECT_NE(refused.str().find("--init"), std::string::npos) << refused.str();
  TrainCommand missing = command(builtin->residual);
  missing.init = dir + "/no-such.nnue";
  EXPECT_EQ(run_train_command(missing, refused), 1);
  for (const std::string& f : {lines, start, out}) std::remove(f.c_str());
}

TEST(Nnue, TrainDataReadsSelfPlayLinesAndRefusesBadOnes) {
  std::istringstream in(
      "# a comment\n"
      "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1;0.5;12\n"
      "8/8/4k3/8/8/2R5/8/3K4 w - - 0 1;1;900\n"  // pawnless: left out
      "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR b - - 0 1;0\n");
  TrainData data;
  std::string error;
  ASSERT_TRUE(load_train_data(in, Variant::Makruk, 0, data, &error)) << error;
  ASSERT_EQ(data.entries.size(), 2u);
  EXPECT_TRUE(data.entries[0].has_score);
  EXPECT_EQ(data.entries[0].score, 12);
  EXPECT_FALSE(data.entries[1].has_score);
  EXPECT_EQ(data.entries[1].stm, BLACK);
  EXPECT_EQ(data.entries[0].n_white, KING_ZONES > 1 ? 64 : 32);  // with zones each piece in the shared set too
  std::istringstream bad("rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1;0.5\nnot a fen;1\n");
  EXPECT_FALSE(load_train_data(bad, Variant::Makruk, 0, data, &error));
  EXPECT_NE(error.find("line 2"), std::string::npos);
}

TEST(Nnue, TheQuantisedNetworkFollowsTheFloatNetwork) {
  const FloatNetwork& f = material_network();
  auto q = f.quantise();
  double total = 0;
  int n = 0, wide = 0;
  random_games(3, 5, [&](const Position& pos) {
    uint16_t white[MAX_TRAIN_ACTIVE], black[MAX_TRAIN_ACTIVE];
    const int nw = train_inputs(pos, WHITE, white), nb = train_inputs(pos, BLACK, black);
    std::vector<uint16_t> us, them;
    for (int i = 0; i < nw; ++i) (pos.side_to_move() == WHITE ? us : them).push_back(white[i]);
    for (int i = 0; i < nb; ++i) (pos.side_to_move() == BLACK ? us : them).push_back(black[i]);
    const double want =
        f.forward(us.data(), int(us.size()), them.data(), int(them.size()), bucket_of(pos)) * OUTPUT_SCALE;
    Accumulator acc;
    refresh(*q, pos, acc);
    const double got = evaluate(*q, acc, pos.side_to_move(), bucket_of(pos));
    EXPECT_NEAR(got, want, 20 + 0.04 * std::abs(want)) << pos.fen();
    total += std::abs(got - want);
    wide += std::abs(want) > 200;
    ++n;
  });
  EXPECT_LT(total / n, 6.0);
  EXPECT_GT(wide, n / 10);  // the network's values spread: the comparison means something
}

namespace {
// Every set's output bias such that a network of zero weights gives `cp` to the side to move.
void give_every_position(Network& net, int cp) {
  std::fill(std::begin(net.out_bias), std::end(net.out_bias),
            int32_t(int64_t(cp) * HIDDEN_ONE * DENSE_SCALE / OUTPUT_SCALE) + 1);
}
}  // namespace

TEST(NnueSearch, TheSearchKeepsItsAccumulatorsExact) {
  auto net = random_network(21);
  Engine engine;
  engine.set_network(std::shared_ptr<const Network>(std::move(net)));
  check_search_accumulators(true);
  accumulator_checks() = {};
  std::mt19937_64 rng(5);
  int searches = 0;
  random_games(2, 17, [&](const Position& pos) {
    if (rng() % 12 != 0) return;
    MoveList legal;
    generate_legal(pos, legal);
    if (legal.size == 0) return;
    Limits limits;
    limits.nodes = 3000;
    const SearchResult r = engine.search(pos, limits);
    EXPECT_TRUE(legal.contains(r.best)) << pos.fen();
    ++searches;
  });
  check_search_accumulators(false);
  EXPECT_GT(searches, 10);
  EXPECT_GT(accumulator_checks().checked, 10000u);
  EXPECT_EQ(accumulator_checks().differed, 0u);
}

TEST(NnueSearch, TheNetworkDecidesTheScore) {
  // Every weight zero, the output's bias alone: each position with pawns is worth
  // 123 cp to the side to move.
  std::unique_ptr<Network> net(new Network{});  // every weight zero
  net->variants = 3;
  give_every_position(*net, 123);
  Accumulator acc;
  const Position pos = start(Variant::Makruk);
  refresh(*net, pos, acc);
  ASSERT_EQ(evaluate(*net, acc, WHITE, bucket_of(pos)), 123);
  Engine engine;
  Limits limits;
  limits.depth = 3;
  const Value hand_written = engine.search(pos, limits).score;
  engine.set_network(std::shared_ptr<const Network>(std::move(net)));
  const SearchResult r = engine.search(pos, limits);
  EXPECT_EQ(std::abs(r.score), 123);
  EXPECT_NE(r.score, hand_written);
  engine.set_network(nullptr);
  EXPECT_EQ(engine.search(pos, limits).score, hand_written);

  // A network trained on Makruk alone leaves Ouk Chatrang to the hand-written evaluation.
  std::unique_ptr<Network> makruk_only(new Network{});  // every weight zero
  give_every_position(*makruk_only, 123);
  makruk_only->variants = 1;
  const Position ouk = start(Variant::Ouk);
  const Value ouk_hand = engine.search(ouk, limits).score;
  engine.set_network(std::shared_ptr<const Network>(std::move(makruk_only)));
  EXPECT_EQ(engine.search(ouk, limits).score, ouk_hand);
  EXPECT_EQ(std::abs(engine.search(pos, limits).score), 123);
}

TEST(NnueSearch, AResidualNetworkCorrectsTheHandWrittenEvaluation) {
  // A residual network that outputs nothing leaves the search as it was; one
  // that adds 50 cp for the side to move in every position with pawns moves
  // the score by 50.
  std::unique_ptr<Network> zero(new Network{});  // every weight zero
  zero->residual = true;
  zero->variants = 3;
  auto plus = std::make_unique<Network>(*zero);
  give_every_position(*plus, 50);
  const Position pos = start(Variant::Makruk);
  Limits limits;
  limits.depth = 5;
  Engine engine;
  const SearchResult hand = engine.search(pos, limits);
  engine.set_network(std::shared_ptr<const Network>(std::move(zero)));
  const SearchResult same = engine.search(pos, limits);
  EXPECT_EQ(same.score, hand.score);
  EXPECT_EQ(same.nodes, hand.nodes);
  EXPECT_EQ(same.best, hand.best);
  // One ply from the start (no capture is possible yet): the root's score is
  // the best reply's evaluation turned round, now 50 cp better for the reply.
  engine.set_network(std::shared_ptr<const Network>(std::move(plus)));
  limits.depth = 1;
  Engine plain;
  EXPECT_EQ(engine.search(pos, limits).score, plain.search(pos, limits).score - 50);
}

TEST(NnueSearch, TheBuiltInNetworkLoadsAndUciUsesItUnlessToldNot) {
  const auto net = default_network();
  ASSERT_TRUE(net);
  EXPECT_TRUE(net->plays(Variant::Makruk));
  EXPECT_EQ(default_network(), net);  // read once
  // The built-in network and the hand-written evaluation score a middlegame
  // differently, in the engine and over UCI (UseNNUE false: the hand-written).
  const std::string fen = "rn1mksr1/2s5/pppp1ppp/4pn2/8/PPPPPPPP/R1KS4/1N2MSNR w - - 0 6";
  Engine engine;
  Limits limits;
  limits.depth = 6;
  Position pos;
  std::string error;
  ASSERT_TRUE(pos.set(fen, Variant::Makruk, Counting::Automatic, &error)) << error;
  const Value hand = engine.search(pos, limits).score;
  engine.set_network(net);
  const Value learned = engine.search(pos, limits).score;
  EXPECT_NE(hand, learned);
  auto score_of = [&](const std::string& options) {
    std::istringstream in(options + "position fen " + fen + "\ngo depth 6\n");  // no quit: the search runs to its end
    std::ostringstream out;
    uci_loop(in, out);
    const std::string text = out.str();
    const size_t at = text.rfind("score cp ");
    EXPECT_NE(at, std::string::npos) << text;
    return at == std::string::npos ? 0 : std::stoi(text.substr(at + 9));
  };
  const int uci_default = score_of("");
  EXPECT_NE(score_of("setoption name UseNNUE value false\n"), uci_default);
  EXPECT_EQ(score_of("setoption name UseNNUE value false\nsetoption name UseNNUE value true\n"), uci_default);
  EXPECT_EQ(score_of("setoption name EvalFile value <built-in>\n"), uci_default);
}

// Each variant has its built-in network: Ouk Chatrang's is its own and plays
// it, and a search of an Ouk position uses it (UCI too, after UCI_Variant).
TEST(NnueSearch, EachVariantHasItsBuiltInNetwork) {
  const auto makruk = default_network(Variant::Makruk), ouk = default_network(Variant::Ouk);
  ASSERT_TRUE(makruk && ouk);
  EXPECT_NE(makruk, ouk);
  EXPECT_TRUE(ouk->plays(Variant::Ouk));
  EXPECT_EQ(default_network(Variant::Ouk), ouk);  // read once
  Engine engine{default_networks()};
  EXPECT_EQ(engine.network(Variant::Makruk), makruk.get());
  EXPECT_EQ(engine.network(Variant::Ouk), ouk.get());
  engine.set_network(makruk);  // one network for every variant it plays
  EXPECT_EQ(engine.network(Variant::Makruk), makruk.get());
  EXPECT_EQ(engine.network(Variant::Ouk), makruk->plays(Variant::Ouk) ? makruk.get() : nullptr);

  // An Ouk middlegame: the built-in networks, the hand-written evaluation and
  // the Makruk network alone score it three ways; UCI's default is the first.
  const std::string fen = "rn1mksr1/2s5/pppp1ppp/4pn2/8/PPPPPPPP/R1KS4/1N2MSNR w - - 0 6";
  Position pos;
  std::string error;
  ASSERT_TRUE(pos.set(fen, Variant::Ouk, Counting::Automatic, &error)) << error;
  Limits limits;
  limits.depth = 6;
  engine.set_networks(default_networks());
  const Value built_in = engine.search(pos, limits).score;
  engine.set_networks({});
  const Value hand = engine.search(pos, limits).score;
  EXPECT_NE(built_in, hand);
  std::istringstream in("setoption name UCI_Variant value ouk\nposition fen " + fen + "\ngo depth 6\n");
  std::ostringstream out;
  uci_loop(in, out);
  const std::string text = out.str();
  const size_t at = text.rfind("score cp ");
  ASSERT_NE(at, std::string::npos) << text;
  EXPECT_EQ(std::stoi(text.substr(at + 9)), built_in) << text;
}

TEST(NnueSearch, UciLoadsANetworkFileAndRefusesABadOne) {
  const std::string path = ::testing::TempDir() + "/test.nnue";
  {
    std::ofstream out(path, std::ios::binary);
    out << save(*random_network(4));
  }
  const std::string bad = ::testing::TempDir() + "/bad.nnue";
  {
    std::ofstream out(bad, std::ios::binary);
    out << "MKNN";
  }
  std::istringstream in("uci\nsetoption name EvalFile value " + bad + "\nsetoption name EvalFile value " + path +
                        "\nposition startpos moves c3c4\ngo depth 4\nsetoption name EvalFile value <built-in>\n"
                        "go depth 3\nsetoption name EvalFile value none\nsetoption name UseNNUE value maybe\nquit\n");
  std::ostringstream out;
  uci_loop(in, out);
  const std::string text = out.str();
  EXPECT_NE(text.find("option name EvalFile type string default <built-in>"), std::string::npos);
  EXPECT_NE(text.find("option name UseNNUE type check default true"), std::string::npos);
  EXPECT_NE(text.find("info string option 'EvalFile': none: not a file"), std::string::npos) << text;
  EXPECT_NE(text.find("info string option 'UseNNUE' needs true or false, got 'maybe'"), std::string::npos) << text;
  EXPECT_NE(text.find("info string option 'EvalFile': " + bad + ": the header is cut short"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("info string option 'EvalFile': " + path), std::string::npos) << text;
  size_t bestmoves = 0;
  for (size_t at = text.find("bestmove "); at != std::string::npos; at = text.find("bestmove ", at + 1)) ++bestmoves;
  EXPECT_EQ(bestmoves, 2u) << text;
  std::remove(path.c_str());
  std::remove(bad.c_str());
}

TEST(Nnue, MirroredPositionsAreTheBoardTurnedLeftToRight) {
  // A position and its mirror image (files a-h), read as data with --mirror: in
  // Makruk, and in Ouk Chatrang once no first-move right is left.
  const char* fen = "r1smk1nr/3s4/pp1ppnpp/2p5/5P2/PPP1P1PP/4N3/RNSK1SMR w - - 0 9";
  const char* mirrored = "rn1kms1r/4s3/ppnpp1pp/5p2/2P5/PP1P1PPP/3N4/RMS1KSNR w - - 0 9";
  for (Variant v : {Variant::Makruk, Variant::Ouk}) {
    std::istringstream in(std::string(fen) + ";1;50\n");
    TrainData data;
    std::string error;
    ASSERT_TRUE(load_train_data(in, v, 0, data, &error, true)) << error;
    ASSERT_EQ(data.entries.size(), 2u);
    TrainData direct;
    Position pos;
    ASSERT_TRUE(pos.set(mirrored, v, Counting::Automatic, &error)) << error;
    add_position(pos, 1, 50, true, direct);
    const auto& e = data.entries[1];
    const auto& d = direct.entries[0];
    ASSERT_EQ(e.n_white, d.n_white);
    ASSERT_EQ(e.n_black, d.n_black);
    std::multiset<uint16_t> got(data.inputs.begin() + e.begin, data.inputs.begin() + e.begin + e.n_white + e.n_black);
    std::multiset<uint16_t> want(direct.inputs.begin() + d.begin,
                                 direct.inputs.begin() + d.begin + d.n_white + d.n_black);
    EXPECT_EQ(got, want);
    EXPECT_EQ(e.result, d.result);
    EXPECT_EQ(e.score, d.score);
    EXPECT_EQ(e.variant, d.variant);
  }
  // Ouk's first-move rights are not symmetric (the king leaps from d1): while a
  // right is left, the position is not mirrored.
  for (const char* ouk : {"rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1;0.5;0\n",
                          "r1smk1nr/3s4/pp1ppnpp/2p5/5P2/PPP1P1PP/4N3/RNSK1SMR w d - 0 9;0.5;0\n"}) {
    std::istringstream in(ouk);
    TrainData o;
    std::string error;
    ASSERT_TRUE(load_train_data(in, Variant::Ouk, 0, o, &error, true)) << error;
    EXPECT_EQ(o.entries.size(), 1u) << ouk;
  }
}
