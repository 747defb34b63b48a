// A position of Makruk or Ouk Chatrang: the board, the side to move, the Ouk
// first-move rights and the running count, with cheap do_move/undo_move.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "bitboard.h"
#include "count.h"
#include "messages.h"
#include "types.h"

namespace makruk {

// Ouk first-move rights, one bit each; FEN letters D, E, d, e (docs/rules.md §8).
enum Rights : uint8_t {
  NO_RIGHTS = 0,
  WHITE_KING_RIGHT = 1,   // D: king on d1
  WHITE_NEANG_RIGHT = 2,  // E: neang on e1
  BLACK_NEANG_RIGHT = 4,  // d: neang on d8
  BLACK_KING_RIGHT = 8,   // e: king on e8
};

constexpr Square WHITE_KING_START = 3;   // d1
constexpr Square WHITE_NEANG_START = 4;  // e1
constexpr Square BLACK_NEANG_START = 59; // d8
constexpr Square BLACK_KING_START = 60;  // e8

struct StateInfo {
  uint64_t key = 0;  // placement, side to move, rights (the repetition key)
  Bitboard checkers = 0;
  Count count;
  Move move;  // the move that led here (none at the root)
  Piece captured = NO_PIECE;
  uint8_t rights = NO_RIGHTS;
  // Plies since the last capture, pawn move, change of rights or null move:
  // no earlier position can recur.
  uint16_t reversible = 0;
};

class Position {
 public:
  static constexpr std::string_view MAKRUK_START =
      "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1";
  static constexpr std::string_view OUK_START =
      "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1";
  static std::string_view start_fen(Variant v) { return v == Variant::Makruk ? MAKRUK_START : OUK_START; }

  Position();

  // Parses a FEN (docs/rules.md §8). On failure returns false, leaves the position
  // unchanged and describes the fault (field and problem) in `error`
  // (messages.h: fen.*).
  bool set(std::string_view fen, Variant variant, Counting counting, Why error);
  std::string fen() const;

  Variant variant() const { return variant_; }
  Counting counting() const { return counting_; }
  Color side_to_move() const { return side_; }
  int game_ply() const { return ply_; }

  Piece piece_on(Square s) const { return board_[s]; }
  Bitboard pieces() const { return by_color_[WHITE] | by_color_[BLACK]; }
  Bitboard pieces(Color c) const { return by_color_[c]; }
  Bitboard pieces(PieceType pt) const { return by_type_[pt]; }
  Bitboard pieces(Color c, PieceType pt) const { return by_color_[c] & by_type_[pt]; }
  Bitboard met_movers() const { return by_type_[MET] | by_type_[PROMOTED]; }
  Bitboard met_movers(Color c) const { return by_color_[c] & met_movers(); }
  Square king_square(Color c) const { return lsb(pieces(c, KING)); }

  uint8_t rights() const { return st().rights; }
  Bitboard checkers() const { return st().checkers; }
  bool in_check() const { return st().checkers != 0; }
  uint64_t key() const { return st().key; }
  // The key with the count folded in: everything that decides the game's future.
  uint64_t full_key() const;
  const Count& count() const { return st().count; }
  void set_count(const Count& c) { states_.back().count = c; }
  Move last_move() const { return st().move; }
  Piece captured_piece() const { return st().captured; }
  size_t history_size() const { return states_.size(); }
  // The same position without the states before this one: what looking a
  // move ahead needs (notation's check marks), at a cost that does not grow
  // with the game's length.
  Position without_history() const;
  const StateInfo& state(size_t i) const { return states_[i]; }

  Bitboard attackers_to(Square s, Bitboard occupied) const;
  bool attacked_by(Color c, Square s) const { return attackers_to(s, pieces()) & pieces(c); }
  // Squares whose pieces shield `c`'s king from an enemy rook.
  Bitboard pinned(Color c) const;
  // Every square attacked by side c, with `occupied` as the occupancy for rook rays.
  Bitboard attacks_by(Color c, Bitboard occupied) const;

  // Whether the move is a pseudo-legal Ouk first-move jump.
  bool is_king_jump(Move m) const;
  bool is_neang_jump(Move m) const;

  void do_move(Move m);
  void undo_move();
  // Passes the turn (search only; never while in check). The count is unchanged.
  void do_null_move();
  void undo_null_move();
  int reversible_plies() const { return st().reversible; }

  // Whole-position checks (full recompute); used by tests and debug asserts.
  uint64_t compute_key() const;
  bool is_consistent() const;

 private:
  struct Empty {};
  explicit Position(Empty);
  const StateInfo& st() const { return states_.back(); }
  void put_piece(Piece p, Square s);
  void remove_piece(Square s);
  void move_piece(Square from, Square to);
  Bitboard compute_checkers() const;

  Piece board_[64];
  Bitboard by_type_[PIECE_TYPE_NB];
  Bitboard by_color_[COLOR_NB];
  Color side_ = WHITE;
  Variant variant_ = Variant::Makruk;
  Counting counting_ = Counting::Automatic;
  int ply_ = 0;  // plies since the start of the game (from the FEN's move number)
  std::vector<StateInfo> states_;
};

namespace zobrist {
extern uint64_t psq[PIECE_NB][64];
extern uint64_t side;
extern uint64_t rights[16];
}  // namespace zobrist

}  // namespace makruk
