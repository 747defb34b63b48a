// The small vocabulary every part of the rules core speaks: colours, pieces,
// squares and moves. Kept header-only and constexpr so the hot paths inline.
#pragma once

#include <cstdint>
#include <string_view>

namespace makruk {

enum class Variant : uint8_t { Makruk, Ouk };

enum Color : uint8_t { WHITE = 0, BLACK = 1, COLOR_NB = 2 };
constexpr Color operator~(Color c) { return Color(c ^ 1); }

// MET is the queen's place; PROMOTED is a pawn that reached its sixth rank.
// Both move one step diagonally, but the record keeps them apart.
enum PieceType : uint8_t {
  NO_PIECE_TYPE = 0,
  PAWN = 1,
  MET = 2,
  KHON = 3,
  KNIGHT = 4,
  ROOK = 5,
  KING = 6,
  PROMOTED = 7,
  PIECE_TYPE_NB = 8
};

enum Piece : uint8_t { NO_PIECE = 0, PIECE_NB = 16 };
constexpr Piece make_piece(Color c, PieceType pt) { return Piece(c * 8 + pt); }
constexpr Color color_of(Piece p) { return Color(p >> 3); }
constexpr PieceType type_of(Piece p) { return PieceType(p & 7); }

using Square = int;  // 0..63, a1 = 0, b1 = 1, …, h8 = 63
constexpr Square SQ_NONE = 64;
constexpr int file_of(Square s) { return s & 7; }
constexpr int rank_of(Square s) { return s >> 3; }
constexpr Square make_square(int file, int rank) { return rank * 8 + file; }
constexpr bool is_ok(Square s) { return s >= 0 && s < 64; }
// Rank counted from the side's own back rank (0 = first rank).
constexpr int relative_rank(Color c, Square s) { return c == WHITE ? rank_of(s) : 7 - rank_of(s); }
constexpr int pawn_push(Color c) { return c == WHITE ? 8 : -8; }

// A move in 16 bits: from (6), to (6), flags (4). Ouk first-move jumps need no
// flag: the piece, its rights and the distance identify them.
class Move {
 public:
  static constexpr uint16_t PROMOTION = 1;

  constexpr Move() = default;
  constexpr Move(Square from, Square to, uint16_t flags = 0)
      : data_(uint16_t(from | (to << 6) | (flags << 12))) {}

  constexpr Square from() const { return data_ & 63; }
  constexpr Square to() const { return (data_ >> 6) & 63; }
  constexpr bool is_promotion() const { return (data_ >> 12) & PROMOTION; }
  constexpr uint16_t raw() const { return data_; }
  constexpr bool is_none() const { return data_ == 0; }
  static constexpr Move from_raw(uint16_t raw) {
    Move m;
    m.data_ = raw;
    return m;
  }

  constexpr bool operator==(const Move&) const = default;

 private:
  uint16_t data_ = 0;
};

constexpr int MAX_MOVES = 128;

struct MoveList {
  Move moves[MAX_MOVES];
  int size = 0;

  void push(Move m) { moves[size++] = m; }
  const Move* begin() const { return moves; }
  const Move* end() const { return moves + size; }
  bool contains(Move m) const {
    for (Move x : *this)
      if (x == m) return true;
    return false;
  }
};

std::string_view variant_name(Variant v);
// Accepts "makruk", "ouk", "cambodian", "ouk-chatrang"; false when unknown.
bool parse_variant(std::string_view name, Variant& out);

}  // namespace makruk
