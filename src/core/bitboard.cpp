#include "bitboard.h"

#include <cstdlib>
#include <mutex>

namespace makruk {

namespace tables {
Bitboard knight[64];
Bitboard king[64];
Bitboard met[64];
Bitboard khon[2][64];
Bitboard pawn_attack[2][64];
Bitboard between[64][64];
Bitboard line[64][64];
Magic rook_magic[64];
}  // namespace tables

namespace {

// 0x19000 entries cover every rook occupancy subset of all 64 squares.
Bitboard rook_table[0x19000];

Bitboard step(Square s, int df, int dr) {
  int f = file_of(s) + df, r = rank_of(s) + dr;
  return (f >= 0 && f < 8 && r >= 0 && r < 8) ? square_bb(make_square(f, r)) : 0;
}

Bitboard slide(Square s, Bitboard occupied) {
  static constexpr int dirs[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
  Bitboard attacks = 0;
  for (const auto& d : dirs) {
    int f = file_of(s), r = rank_of(s);
    for (;;) {
      f += d[0];
      r += d[1];
      if (f < 0 || f > 7 || r < 0 || r > 7) break;
      Bitboard b = square_bb(make_square(f, r));
      attacks |= b;
      if (occupied & b) break;
    }
  }
  return attacks;
}

// xorshift64*: a fixed seed makes the magics (and so the tables) reproducible.
struct Prng {
  uint64_t s;
  uint64_t next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 2685821657736338717ULL;
  }
  uint64_t sparse() { return next() & next() & next(); }
};

void init_rook_magics() {
  // One generator per rank; these seeds find every magic within a few hundred tries.
  static constexpr uint64_t SEEDS[8] = {728, 10316, 55013, 32803, 12281, 15100, 16645, 255};
  Bitboard occupancy[4096], reference[4096];
  int epoch[4096] = {}, attempt = 0;
  Bitboard* table = rook_table;
  for (Square s = 0; s < 64; ++s) {
    Bitboard edges = ((rank_bb(0) | rank_bb(7)) & ~rank_bb(rank_of(s))) |
                     ((file_bb(0) | file_bb(7)) & ~file_bb(file_of(s)));
    Magic& m = tables::rook_magic[s];
    m.mask = slide(s, 0) & ~edges;
    m.shift = 64 - popcount(m.mask);
    m.attacks = table;
    int size = 0;
    Bitboard b = 0;
    do {  // Carry-Rippler enumeration of all subsets of the mask
      occupancy[size] = b;
      reference[size] = slide(s, b);
      ++size;
      b = (b - m.mask) & m.mask;
    } while (b);
    Prng rng{SEEDS[rank_of(s)]};
    for (;;) {
      m.magic = rng.sparse();
      if (popcount((m.mask * m.magic) >> 56) < 6) continue;
      ++attempt;
      int i = 0;
      for (; i < size; ++i) {
        unsigned idx = m.index(occupancy[i]);
        if (epoch[idx] < attempt) {
          epoch[idx] = attempt;
          table[idx] = reference[i];
        } else if (table[idx] != reference[i]) {
          break;
        }
      }
      if (i == size) break;
    }
    table += size;
  }
}

void init_all() {
  for (Square s = 0; s < 64; ++s) {
    using T = Bitboard;
    T n = 0, k = 0, d = 0;
    static constexpr int jumps[8][2] = {{1, 2}, {2, 1}, {2, -1}, {1, -2},
                                        {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
    for (const auto& j : jumps) n |= step(s, j[0], j[1]);
    for (int df = -1; df <= 1; ++df)
      for (int dr = -1; dr <= 1; ++dr)
        if (df || dr) k |= step(s, df, dr);
    d = step(s, 1, 1) | step(s, 1, -1) | step(s, -1, 1) | step(s, -1, -1);
    tables::knight[s] = n;
    tables::king[s] = k;
    tables::met[s] = d;
    tables::khon[WHITE][s] = d | step(s, 0, 1);
    tables::khon[BLACK][s] = d | step(s, 0, -1);
    tables::pawn_attack[WHITE][s] = step(s, 1, 1) | step(s, -1, 1);
    tables::pawn_attack[BLACK][s] = step(s, 1, -1) | step(s, -1, -1);
  }
  init_rook_magics();
  for (Square a = 0; a < 64; ++a)
    for (Square b = 0; b < 64; ++b) {
      tables::between[a][b] = tables::line[a][b] = 0;
      if (a == b) continue;
      if (file_of(a) == file_of(b) || rank_of(a) == rank_of(b)) {
        tables::between[a][b] =
            rook_attacks(a, square_bb(b)) & rook_attacks(b, square_bb(a));
        tables::line[a][b] = ((rook_attacks(a, 0) & rook_attacks(b, 0)) | square_bb(a) |
                              square_bb(b)) &
                             (file_of(a) == file_of(b) ? file_bb(file_of(a)) : rank_bb(rank_of(a)));
      }
    }
}

}  // namespace

void init_bitboards() {
  static std::once_flag once;
  std::call_once(once, init_all);
}

}  // namespace makruk
