// Bitboards and attack tables. The rook is the only slider in these games, so
// one magic table serves all sliding attacks; every other piece steps or jumps.
#pragma once

#include <cstdint>

#include "types.h"

namespace makruk {

using Bitboard = uint64_t;

constexpr Bitboard FILE_A_BB = 0x0101010101010101ULL;
constexpr Bitboard RANK_1_BB = 0xFFULL;
constexpr Bitboard file_bb(int f) { return FILE_A_BB << f; }
constexpr Bitboard rank_bb(int r) { return RANK_1_BB << (8 * r); }
constexpr Bitboard square_bb(Square s) { return 1ULL << s; }

inline int popcount(Bitboard b) { return __builtin_popcountll(b); }
inline Square lsb(Bitboard b) { return __builtin_ctzll(b); }
inline Square pop_lsb(Bitboard& b) {
  Square s = lsb(b);
  b &= b - 1;
  return s;
}
constexpr bool more_than_one(Bitboard b) { return b & (b - 1); }

template <Color C>
constexpr Bitboard shift_up(Bitboard b) {
  return C == WHITE ? b << 8 : b >> 8;
}

// Dark squares (a1 is dark). Met-movers never leave their square colour.
constexpr Bitboard DARK_SQUARES = 0xAA55AA55AA55AA55ULL;

struct Magic {
  Bitboard mask;
  Bitboard magic;
  const Bitboard* attacks;
  unsigned shift;
  unsigned index(Bitboard occupied) const {
    return unsigned(((occupied & mask) * magic) >> shift);
  }
};

namespace tables {
extern Bitboard knight[64];
extern Bitboard king[64];
extern Bitboard met[64];          // one step diagonally
extern Bitboard khon[2][64];      // one step diagonally or straight forward
extern Bitboard pawn_attack[2][64];
extern Bitboard between[64][64];  // squares strictly between, on a rank or file
extern Bitboard line[64][64];     // the whole rank or file through both, or 0
extern Magic rook_magic[64];
}  // namespace tables

// Builds every table; idempotent and thread-safe (runs once).
void init_bitboards();

inline Bitboard rook_attacks(Square s, Bitboard occupied) {
  const Magic& m = tables::rook_magic[s];
  return m.attacks[m.index(occupied)];
}
inline Bitboard knight_attacks(Square s) { return tables::knight[s]; }
inline Bitboard king_attacks(Square s) { return tables::king[s]; }
inline Bitboard met_attacks(Square s) { return tables::met[s]; }
inline Bitboard khon_attacks(Color c, Square s) { return tables::khon[c][s]; }
inline Bitboard pawn_attacks(Color c, Square s) { return tables::pawn_attack[c][s]; }
inline Bitboard between_bb(Square a, Square b) { return tables::between[a][b]; }
inline Bitboard line_bb(Square a, Square b) { return tables::line[a][b]; }

}  // namespace makruk
