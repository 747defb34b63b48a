#include "notation.h"

#include "movegen.h"

namespace makruk {

namespace {

// Letters by PieceType; a promoted pawn moves as a met and is written as one.
constexpr const char* SAN_LETTERS[PIECE_TYPE_NB] = {"", "", "M", "S", "N", "R", "K", "M"};
constexpr const char* THAI_LETTERS[PIECE_TYPE_NB] = {"", "", "ม็", "ค", "ม", "ร", "ข", "ม็"};

// Pieces that share a SAN letter (met and promoted pawn) disambiguate together.
bool same_letter(PieceType a, PieceType b) {
  auto norm = [](PieceType t) { return t == PROMOTED ? MET : t; };
  return norm(a) == norm(b);
}

bool parse_square(std::string_view s, Square& out) {
  if (s.size() != 2 || s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8') return false;
  out = make_square(s[0] - 'a', s[1] - '1');
  return true;
}

void set_error(std::string* error, std::string msg) {
  if (error) *error = std::move(msg);
}

std::string san_with(const Position& pos, Move m, const char* const letters[PIECE_TYPE_NB],
                     const char* promotionMark) {
  Square from = m.from(), to = m.to();
  PieceType pt = type_of(pos.piece_on(from));
  bool capture = pos.piece_on(to) != NO_PIECE;
  std::string s;
  if (pt == PAWN) {
    if (capture) s += char('a' + file_of(from)), s += 'x';
    s += square_name(to);
    if (m.is_promotion()) s += promotionMark;
  } else {
    s += letters[pt];
    MoveList legal;
    generate_legal(pos, legal);
    bool ambiguous = false, fileClash = false, rankClash = false;
    for (Move other : legal) {
      if (other == m || other.to() != to || other.from() == from) continue;
      if (!same_letter(type_of(pos.piece_on(other.from())), pt)) continue;
      ambiguous = true;
      fileClash |= file_of(other.from()) == file_of(from);
      rankClash |= rank_of(other.from()) == rank_of(from);
    }
    if (ambiguous) {
      if (!fileClash) s += char('a' + file_of(from));
      else if (!rankClash) s += char('1' + rank_of(from));
      else s += square_name(from);
    }
    if (capture) s += 'x';
    s += square_name(to);
  }
  Position after = pos;
  after.do_move(m);
  if (after.in_check()) s += count_legal(after) ? "+" : "#";
  return s;
}

}  // namespace

std::string square_name(Square s) {
  return std::string{char('a' + file_of(s)), char('1' + rank_of(s))};
}

std::string move_to_string(Move m) {
  std::string s = square_name(m.from()) + square_name(m.to());
  if (m.is_promotion()) s += 'm';
  return s;
}

Move parse_move(const Position& pos, std::string_view text, std::string* error) {
  Square from, to;
  bool promo = text.size() == 5 && text[4] == 'm';
  if ((text.size() != 4 && !promo) || !parse_square(text.substr(0, 2), from) ||
      !parse_square(text.substr(2, 2), to)) {
    set_error(error, "malformed move '" + std::string(text) + "' (expected e.g. e3e4 or d5d6m)");
    return Move();
  }
  MoveList legal;
  generate_legal(pos, legal);
  for (Move m : legal) {
    if (m.from() != from || m.to() != to) continue;
    if (promo && !m.is_promotion()) {
      set_error(error, "move '" + std::string(text) + "' does not promote (no trailing 'm')");
      return Move();
    }
    return m;
  }
  set_error(error, "illegal move '" + std::string(text) + "'");
  return Move();
}

std::string move_to_san(const Position& pos, Move m) { return san_with(pos, m, SAN_LETTERS, "=M"); }

std::string move_to_thai_san(const Position& pos, Move m) {
  return san_with(pos, m, THAI_LETTERS, "=ม็");
}

Move parse_san(const Position& pos, std::string_view text, std::string* error) {
  std::string_view s = text;
  while (!s.empty() && (s.back() == '+' || s.back() == '#' || s.back() == '!' || s.back() == '?'))
    s.remove_suffix(1);
  bool promo = false;
  if (s.size() >= 2 && s.substr(s.size() - 2) == "=M") {
    promo = true;
    s.remove_suffix(2);
  }
  auto bad = [&] {
    set_error(error, "malformed SAN '" + std::string(text) + "'");
    return Move();
  };
  if (s.size() < 2) return bad();
  PieceType pt = PAWN;
  static constexpr std::string_view LETTERS = "MSNRK";
  static constexpr PieceType TYPES[] = {MET, KHON, KNIGHT, ROOK, KING};
  if (size_t i = LETTERS.find(s[0]); i != std::string_view::npos) {
    pt = TYPES[i];
    s.remove_prefix(1);
  }
  Square to;
  if (s.size() < 2 || !parse_square(s.substr(s.size() - 2), to)) return bad();
  s.remove_suffix(2);
  bool capture = !s.empty() && s.back() == 'x';
  if (capture) s.remove_suffix(1);
  int fromFile = -1, fromRank = -1;
  for (char c : s) {
    if (c >= 'a' && c <= 'h' && fromFile < 0) fromFile = c - 'a';
    else if (c >= '1' && c <= '8' && fromRank < 0) fromRank = c - '1';
    else return bad();
  }
  if (pt == PAWN && (capture != (fromFile >= 0) || fromRank >= 0)) return bad();

  MoveList legal;
  generate_legal(pos, legal);
  Move found;
  int matches = 0;
  for (Move m : legal) {
    PieceType mover = type_of(pos.piece_on(m.from()));
    if (m.to() != to || !same_letter(mover, pt)) continue;
    if (fromFile >= 0 && file_of(m.from()) != fromFile) continue;
    if (fromRank >= 0 && rank_of(m.from()) != fromRank) continue;
    if (capture != (pos.piece_on(to) != NO_PIECE)) continue;
    if (promo && !m.is_promotion()) continue;
    found = m;
    ++matches;
  }
  if (matches == 1) return found;
  set_error(error, matches ? "ambiguous SAN '" + std::string(text) + "'"
                           : "illegal move '" + std::string(text) + "'");
  return Move();
}

}  // namespace makruk
