#include "egtb.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

namespace makruk::engine {

namespace {

// The tables' own piece codes. Every table has the hunter as White (a Black
// hunter is probed on the board mirrored top to bottom, colours swapped, so a
// Black khon becomes a White one) and the hunter's king on files a–d (the
// board mirrored left to right otherwise: every piece moves symmetrically).
enum TbPiece : int { TB_ROOK = 0, TB_KHON = 1, TB_KNIGHT = 2, TB_MET = 3, TB_PIECES = 4 };
constexpr char LETTER[TB_PIECES] = {'R', 'S', 'N', 'M'};
constexpr int SLOTS = 4 + 10;  // one-piece tables, then the pairs a <= b

int tb_piece(PieceType pt) {
  switch (pt) {
    case ROOK: return TB_ROOK;
    case KHON: return TB_KHON;
    case KNIGHT: return TB_KNIGHT;
    case MET:
    case PROMOTED: return TB_MET;
    default: return -1;
  }
}

int slot_of(int k, const int* t) {
  if (k == 1) return t[0];
  int a = std::min(t[0], t[1]), b = std::max(t[0], t[1]);
  int slot = 4;
  for (int x = 0; x < TB_PIECES; ++x)
    for (int y = x; y < TB_PIECES; ++y, ++slot)
      if (x == a && y == b) return slot;
  return -1;
}

// Squares a White piece of type t attacks from s.
inline Bitboard attacks(int t, Square s, Bitboard occupied) {
  switch (t) {
    case TB_ROOK: return rook_attacks(s, occupied);
    case TB_KHON: return khon_attacks(WHITE, s);
    case TB_KNIGHT: return knight_attacks(s);
    default: return met_attacks(s);
  }
}

// Squares from which a White piece of type t can have stepped (without
// capturing) to s; the caller removes the occupied ones.
inline Bitboard origins(int t, Square s, Bitboard occupied) {
  switch (t) {
    case TB_ROOK: return rook_attacks(s, occupied);
    case TB_KHON: return khon_attacks(BLACK, s);  // a White khon steps forward
    case TB_KNIGHT: return knight_attacks(s);
    default: return met_attacks(s);
  }
}

constexpr uint8_t BLOCKED = 0xFF;  // aux: illegal, or a defender position that is no loss

// Entries: [side to move: 0 hunter, 1 defender][hunter king, 32 squares of
// files a–d][hunter's pieces, combo_of][defender king]. A byte each: 0 no
// forced mate (or illegal), else the distance to mate in plies + 1.
struct Table {
  std::once_flag once;
  std::atomic<bool> ready{false};
  std::atomic<bool> requested{false};  // a background build has been started
  int k = 0;
  int type[2] = {0, 0};
  size_t half = 0;
  std::vector<uint8_t> val;
  EgtbStats stats;
};

// Never freed: a background build still running at exit must not find its
// table destroyed under it.
Table* all_tables() {
  static Table* tables = new Table[SLOTS];
  return tables;
}

inline int king32(Square wk) { return rank_of(wk) * 4 + file_of(wk); }
inline Square king_square32(int w) { return make_square(w & 3, w >> 2); }

// The hunter's pieces as one number: a square, an ordered pair of squares, or
// for two pieces of one kind an unordered pair (2016 of them, lower square first).
inline size_t tri(Square lo, Square hi) { return size_t(hi) * size_t(hi - 1) / 2 + size_t(lo); }

struct Pairs {
  uint8_t lo[2016], hi[2016];
  Pairs() {
    int n = 0;
    for (int h = 1; h < 64; ++h)
      for (int l = 0; l < h; ++l, ++n) lo[n] = uint8_t(l), hi[n] = uint8_t(h);
  }
};
const Pairs& pairs() {
  static const Pairs p;
  return p;
}

template <int K, bool SAME>
constexpr size_t COMBOS = K == 1 ? 64 : SAME ? 2016 : 4096;

template <int K, bool SAME>
inline size_t combo_of(const Square* p) {
  if constexpr (K == 1) return size_t(p[0]);
  else if constexpr (SAME) return p[0] < p[1] ? tri(p[0], p[1]) : tri(p[1], p[0]);
  else return size_t(p[0]) << 6 | size_t(p[1]);
}

template <int K, bool SAME>
inline void decode_combo(size_t c, Square* p) {
  if constexpr (K == 1) p[0] = Square(c);
  else if constexpr (SAME) p[0] = pairs().lo[c], p[1] = pairs().hi[c];
  else p[0] = Square(c >> 6), p[1] = Square(c & 63);
}

// Index within one half (one side to move) of a table.
template <int K, bool SAME>
inline size_t index_of(int w, const Square* p, Square bk) {
  return (size_t(w) * COMBOS<K, SAME> + combo_of<K, SAME>(p)) << 6 | size_t(bk);
}

const Table& get_table(int slot);

std::string table_name(const Table& tb) {
  std::string s = "K";
  for (int j = 0; j < tb.k; ++j) s += LETTER[tb.type[j]];
  return s + "K";
}

template <int K, bool SAME>
void build(Table& tb) {
  const auto start = std::chrono::steady_clock::now();
  constexpr size_t combos = COMBOS<K, SAME>;
  const size_t half = 32 * combos * 64;
  tb.half = half;
  std::vector<uint8_t>& val = tb.val;
  val.assign(2 * half, 0);
  std::vector<uint8_t> aux(2 * half, BLOCKED);
  uint8_t* const hv = val.data();         // hunter to move
  uint8_t* const dv = val.data() + half;  // defender to move
  uint8_t* const ha = aux.data();
  uint8_t* const da = aux.data() + half;

  // After the defender captures piece j, the hunter (to move) is left with the
  // other piece: a one-piece table. With one piece, bare kings: a draw.
  const uint8_t* sub[2] = {nullptr, nullptr};
  if (K == 2) {
    sub[0] = get_table(tb.type[1]).val.data();
    sub[1] = get_table(tb.type[0]).val.data();
  }
  // The defender's captures from bk; false when one of them escapes the loss.
  // Otherwise `worst` is the longest distance to mate after a capture (-1: none).
  auto captures = [&](int w, const Square* p, Bitboard caps, int& worst) {
    worst = -1;
    for (; caps;) {
      Square c = pop_lsb(caps);
      if (K == 1) return false;
      int j = p[0] == c ? 0 : 1;
      uint8_t v = sub[j][index_of<1, false>(w, &p[1 - j], c)];
      if (!v) return false;
      worst = std::max(worst, v - 1);
    }
    return true;
  };

  int maxd = -1;
  auto set_dtm = [&](uint8_t& slot, int dtm) {
    if (dtm + 1 > 254) {
      std::fprintf(stderr, "egtb: %s distance to mate %d does not fit a byte\n",
                   table_name(tb).c_str(), dtm);
      std::abort();
    }
    slot = uint8_t(dtm + 1);
    maxd = std::max(maxd, dtm);
  };

  // Initial pass: legality, checkmates, stalemates, captures, move counts.
  for (int w = 0; w < 32; ++w) {
    const Square wk = king_square32(w);
    for (size_t pc = 0; pc < combos; ++pc) {
      Square p[2];
      decode_combo<K, SAME>(pc, p);
      Bitboard occ = square_bb(wk);
      bool clash = false;
      for (int j = 0; j < K; ++j) {
        if (occ & square_bb(p[j])) clash = true;
        occ |= square_bb(p[j]);
      }
      if (clash) continue;
      // Everything the hunter attacks, seen through the defender's king.
      Bitboard att = king_attacks(wk);
      for (int j = 0; j < K; ++j) att |= attacks(tb.type[j], p[j], occ);
      const Bitboard pieces = occ ^ square_bb(wk);
      const Bitboard forbidden = occ | king_attacks(wk);
      const size_t base = index_of<K, SAME>(w, p, 0);
      for (Square bk = 0; bk < 64; ++bk) {
        if (forbidden & square_bb(bk)) continue;
        const size_t i = base + size_t(bk);
        const bool check = att & square_bb(bk);
        ha[i] = check ? BLOCKED : 0;  // the defender cannot be in check with the hunter to move
        const Bitboard moves = king_attacks(bk) & ~att;
        int worst;
        if (!captures(w, p, moves & pieces, worst)) continue;  // stays BLOCKED, a draw
        if (!moves) {
          if (check) set_dtm(dv[i], 0);  // checkmate; stalemate stays BLOCKED
          continue;
        }
        const int quiet = popcount(moves & ~pieces);
        if (quiet) da[i] = uint8_t(quiet);
        else set_dtm(dv[i], worst + 1);  // only captures, each a loss
      }
    }
  }

  // Retrograde passes: positions decided at distance d decide their predecessors.
  for (int d = 0; d <= maxd; ++d) {
    const bool defender_lost = (d & 1) == 0;
    const uint8_t target = uint8_t(d + 1);
    const uint8_t* v = defender_lost ? dv : hv;
    for (size_t i = 0; i < half; ++i) {
      if (v[i] != target) continue;
      const Square bk = Square(i & 63);
      Square p[2];
      decode_combo<K, SAME>((i >> 6) % combos, p);
      const int w = int((i >> 6) / combos);
      const Square wk = king_square32(w);
      Bitboard occ = square_bb(wk) | square_bb(bk);
      for (int j = 0; j < K; ++j) occ |= square_bb(p[j]);
      if (defender_lost) {
        // The hunter's last move led here: every such predecessor wins in d + 1.
        auto win = [&](size_t q) {
          if (ha[q] == 0 && hv[q] == 0) set_dtm(hv[q], d + 1);
        };
        for (int j = 0; j < K; ++j) {
          Square keep = p[j];
          for (Bitboard from = origins(tb.type[j], keep, occ) & ~occ; from;) {
            p[j] = pop_lsb(from);
            win(index_of<K, SAME>(w, p, bk));
          }
          p[j] = keep;
        }
        for (Bitboard from = king_attacks(wk) & ~occ & ~king_attacks(bk); from;) {
          Square f = pop_lsb(from);
          if (file_of(f) < 4) {
            win(index_of<K, SAME>(king32(f), p, bk));
          } else {
            Square m[2];
            for (int j = 0; j < K; ++j) m[j] = p[j] ^ 7;
            win(index_of<K, SAME>(king32(f ^ 7), m, bk ^ 7));
          }
        }
      } else {
        // The defender's last move led here: a predecessor is lost once all
        // its moves are known to lose.
        Bitboard att = king_attacks(wk);
        const Bitboard hunter = occ ^ square_bb(bk);
        for (int j = 0; j < K; ++j) att |= attacks(tb.type[j], p[j], hunter);
        const Bitboard pieces = hunter ^ square_bb(wk);
        const size_t base = index_of<K, SAME>(w, p, 0);
        for (Bitboard from = king_attacks(bk) & ~occ & ~king_attacks(wk); from;) {
          const Square f = pop_lsb(from);
          const size_t q = base + size_t(f);
          if (da[q] == BLOCKED || dv[q]) continue;
          if (--da[q]) continue;
          int worst;
          captures(w, p, king_attacks(f) & ~att & pieces, worst);  // all lose: else BLOCKED
          set_dtm(dv[q], std::max(d, worst) + 1);
        }
      }
    }
  }

  EgtbStats& s = tb.stats;
  s.name = table_name(tb);
  s.bytes = val.size();
  s.peak_bytes = val.size() + aux.size();
  s.max_plies = 0;
  s.wins = s.legal = 0;
  for (size_t i = 0; i < half; ++i) {
    if (ha[i] != 0) continue;
    ++s.legal;
    if (hv[i]) {
      ++s.wins;
      s.max_plies = std::max(s.max_plies, hv[i] - 1);
    }
  }
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

const Table& get_table(int slot) {
  Table& tb = all_tables()[slot];
  std::call_once(tb.once, [&tb, slot] {
    init_bitboards();
    if (slot < 4) {
      tb.k = 1;
      tb.type[0] = slot;
      build<1, false>(tb);
    } else {
      int n = 4;
      for (int x = 0; x < TB_PIECES; ++x)
        for (int y = x; y < TB_PIECES; ++y, ++n)
          if (n == slot) tb.type[0] = x, tb.type[1] = y;
      tb.k = 2;
      if (tb.type[0] == tb.type[1]) build<2, true>(tb);
      else build<2, false>(tb);
    }
    tb.ready.store(true, std::memory_order_release);
  });
  return tb;
}

// The table slot and the index within its half (the side to move's) of a
// covered position; false when not covered.
bool locate(const Position& pos, int& slot, size_t& index, bool& hunter_to_move) {
  if (pos.pieces(PAWN) || pos.rights()) return false;
  Color hunter;
  if (pos.pieces(BLACK) == pos.pieces(BLACK, KING)) hunter = WHITE;
  else if (pos.pieces(WHITE) == pos.pieces(WHITE, KING)) hunter = BLACK;
  else return false;
  Bitboard hp = pos.pieces(hunter) & ~pos.pieces(KING);
  const int k = popcount(hp);
  if (k < 1 || k > 2) return false;
  const int flip = hunter == BLACK ? 56 : 0;
  int t[2];
  Square p[2];
  for (int j = 0; j < k; ++j) {
    Square s = pop_lsb(hp);
    t[j] = tb_piece(type_of(pos.piece_on(s)));
    if (t[j] < 0) return false;
    p[j] = s ^ flip;
  }
  if (k == 2 && t[0] > t[1]) {
    std::swap(t[0], t[1]);
    std::swap(p[0], p[1]);
  }
  Square wk = pos.king_square(hunter) ^ flip, bk = pos.king_square(~hunter) ^ flip;
  if (file_of(wk) >= 4) {
    wk ^= 7;
    bk ^= 7;
    for (int j = 0; j < k; ++j) p[j] ^= 7;
  }
  slot = slot_of(k, t);
  hunter_to_move = pos.side_to_move() == hunter;
  const int w = king32(wk);
  index = k == 1 ? index_of<1, false>(w, p, bk)
          : t[0] == t[1] ? index_of<2, true>(w, p, bk)
                         : index_of<2, false>(w, p, bk);
  return true;
}

bool parse_material(const std::string& material, int& k, int t[2]) {
  k = 0;
  for (char c : material) {
    if (c == 'K' || c == 'k') continue;
    if (k == 2) return false;
    int x = -1;
    for (int y = 0; y < TB_PIECES; ++y)
      if (LETTER[y] == (c & ~0x20)) x = y;
    if (x < 0) return false;
    t[k++] = x;
  }
  return k >= 1;
}

}  // namespace

bool egtb_covers(const Position& pos) {
  int slot;
  size_t index;
  bool hunter_to_move;
  return locate(pos, slot, index, hunter_to_move);
}

bool probe_dtm(const Position& pos, DtmProbe& out, bool wait) {
  int slot;
  size_t index;
  bool hunter_to_move;
  if (!locate(pos, slot, index, hunter_to_move)) return false;
  Table& tb = all_tables()[slot];
  if (!wait && slot >= 4 && !tb.ready.load(std::memory_order_acquire)) {
    if (!tb.requested.exchange(true)) {
      try {
        std::thread([slot] {
          try {
            get_table(slot);
          } catch (...) {  // out of memory: the search goes on without this table
          }
        }).detach();
      } catch (...) {
        tb.requested.store(false);  // no thread to be had: try again later
      }
    }
    return false;
  }
  get_table(slot);
  const uint8_t v = tb.val[(hunter_to_move ? 0 : tb.half) + index];
  if (!v) out = DtmProbe{};
  else out = DtmProbe{hunter_to_move ? Wdl::Win : Wdl::Loss, v - 1};
  return true;
}

bool probe_dtm(const Position& pos, int& plies_to_mate) {
  DtmProbe p;
  if (!probe_dtm(pos, p)) return false;
  plies_to_mate = p.wdl == Wdl::Win ? p.plies : p.wdl == Wdl::Loss ? -p.plies : 0;
  return true;
}

bool egtb_stats(const std::string& material, EgtbStats& out) {
  int k, t[2];
  if (!parse_material(material, k, t)) return false;
  out = get_table(slot_of(k, t)).stats;
  return true;
}

std::vector<EgtbStats> egtb_generated() {
  std::vector<EgtbStats> result;
  for (int slot = 0; slot < SLOTS; ++slot)
    if (all_tables()[slot].ready.load(std::memory_order_acquire))
      result.push_back(all_tables()[slot].stats);
  return result;
}

}  // namespace makruk::engine
