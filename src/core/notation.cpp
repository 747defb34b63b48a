#include "notation.h"

#include "movegen.h"

namespace makruk {

namespace {

// Letters by PieceType; a promoted pawn moves as a met and is written as one.
constexpr const char* SAN_LETTERS[PIECE_TYPE_NB] = {"", "", "M", "S", "N", "R", "K", "M"};
constexpr const char* THAI_LETTERS[PIECE_TYPE_NB] = {"", "", "ม็", "ค", "ม", "ร", "ข", "ม็"};
constexpr const char* KHMER_LETTERS[PIECE_TYPE_NB] = {"", "", "ន", "គ", "ស", "ទ", "ស្ត", "ន"};

// The piece a SAN letter (M S N R K) names; PAWN for any other character.
PieceType piece_of_letter(char c) {
  static constexpr std::string_view LETTERS = "MSNRK";
  static constexpr PieceType TYPES[] = {MET, KHON, KNIGHT, ROOK, KING};
  const size_t i = LETTERS.find(c);
  return i == std::string_view::npos ? PAWN : TYPES[i];
}

// Pieces that share a SAN letter (met and promoted pawn) disambiguate together.
bool same_letter(PieceType a, PieceType b) {
  auto norm = [](PieceType t) { return t == PROMOTED ? MET : t; };
  return norm(a) == norm(b);
}

// The legal moves to `to` by a piece written with pt's letter, from the file
// and rank given (-1: any); capture 1: must take, 0: must not, -1: either;
// promo: must promote. Returns how many; `found` is one of them.
int matching_moves(const Position& pos, const MoveList& legal, PieceType pt, Square to, int from_file,
                   int from_rank, int capture, bool promo, Move& found) {
  int matches = 0;
  for (Move m : legal) {
    if (m.to() != to || !same_letter(type_of(pos.piece_on(m.from())), pt)) continue;
    if (from_file >= 0 && file_of(m.from()) != from_file) continue;
    if (from_rank >= 0 && rank_of(m.from()) != from_rank) continue;
    if (capture >= 0 && capture != (pos.piece_on(to) != NO_PIECE)) continue;
    if (promo && !m.is_promotion()) continue;
    found = m;
    ++matches;
  }
  return matches;
}

bool parse_square(std::string_view s, Square& out) {
  if (s.size() != 2 || s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8') return false;
  out = make_square(s[0] - 'a', s[1] - '1');
  return true;
}


// How a notation writes a move: its piece letters (by PieceType), files and
// ranks, capture and promotion marks; and whether a move told apart by its rank
// (and a pawn capture) names the whole square it leaves, as Thai and Khmer do,
// where some piece letters are also file letters.
struct Writing {
  const char* const* letters;
  const std::string_view* files;
  const std::string_view* ranks;
  const char* capture;
  const char* promotion;
  bool whole_from;
};

constexpr std::string_view LATIN_FILES[] = {"a", "b", "c", "d", "e", "f", "g", "h"};
constexpr std::string_view LATIN_RANKS[] = {"1", "2", "3", "4", "5", "6", "7", "8"};

std::string san_with(const Position& pos, Move m, const Writing& w) {
  Square from = m.from(), to = m.to();
  PieceType pt = type_of(pos.piece_on(from));
  bool capture = pos.piece_on(to) != NO_PIECE;
  auto square = [&](Square sq) { return std::string(w.files[file_of(sq)]) + std::string(w.ranks[rank_of(sq)]); };
  std::string s;
  if (pt == PAWN) {
    if (capture) s += w.whole_from ? square(from) : std::string(w.files[file_of(from)]), s += w.capture;
    s += square(to);
    if (m.is_promotion()) s += w.promotion;
  } else {
    s += w.letters[pt];
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
      if (!fileClash) s += w.files[file_of(from)];
      else if (!rankClash && !w.whole_from) s += w.ranks[rank_of(from)];
      else s += square(from);
    }
    if (capture) s += w.capture;
    s += square(to);
  }
  Position after = pos.without_history();
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

Move parse_move(const Position& pos, std::string_view text, Why error) {
  Square from, to;
  bool promo = text.size() == 5 && text[4] == 'm';
  if ((text.size() != 4 && !promo) || !parse_square(text.substr(0, 2), from) ||
      !parse_square(text.substr(2, 2), to)) {
    error({Msg::MoveMalformed, {{"move", text}}});
    return Move();
  }
  MoveList legal;
  generate_legal(pos, legal);
  for (Move m : legal) {
    if (m.from() != from || m.to() != to) continue;
    if (promo && !m.is_promotion()) {
      error({Msg::MoveNoPromotion, {{"move", text}}});
      return Move();
    }
    return m;
  }
  error({Msg::MoveIllegal, {{"move", text}}});
  return Move();
}

std::string move_to_san(const Position& pos, Move m) {
  return san_with(pos, m, {SAN_LETTERS, LATIN_FILES, LATIN_RANKS, "x", "=M", false});
}

std::string move_to_thai_san(const Position& pos, Move m) {
  return san_with(pos, m, {THAI_LETTERS, LATIN_FILES, LATIN_RANKS, "x", "=ม็", false});
}

Move parse_san(const Position& pos, std::string_view text, Why error) {
  std::string_view s = text;
  while (!s.empty() && (s.back() == '+' || s.back() == '#' || s.back() == '!' || s.back() == '?'))
    s.remove_suffix(1);
  bool promo = false;
  if (s.size() >= 2 && s.substr(s.size() - 2) == "=M") {
    promo = true;
    s.remove_suffix(2);
  }
  auto bad = [&] {
    error({Msg::SanMalformed, {{"move", text}}});
    return Move();
  };
  if (s.size() < 2) return bad();
  const PieceType pt = piece_of_letter(s[0]);
  if (pt != PAWN) s.remove_prefix(1);
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
  const int matches = matching_moves(pos, legal, pt, to, fromFile, fromRank, capture ? 1 : 0, promo, found);
  if (matches == 1) return found;
  error({matches ? Msg::SanAmbiguous : Msg::MoveIllegal, {{"move", text}}});
  return Move();
}

namespace {

// Thai and Khmer letters and digits, as UTF-8, by their Latin counterparts.
constexpr std::string_view THAI_FILES[] = {"ก", "ข", "ค", "ง", "จ", "ฉ", "ช", "ญ"};
constexpr std::string_view KHMER_FILES[] = {"ក", "ខ", "គ", "ឃ", "ង", "ច", "ឆ", "ជ"};
constexpr std::string_view THAI_DIGITS[] = {"๐", "๑", "๒", "๓", "๔", "๕", "๖", "๗", "๘", "๙"};
constexpr std::string_view KHMER_DIGITS[] = {"០", "១", "២", "៣", "៤", "៥", "៦", "៧", "៨", "៩"};
// Longer first: ม็ (Met) starts with ม (Ma), ស្ត (Sdech) with ស (Seh).
constexpr std::pair<std::string_view, char> LOCAL_PIECES[] = {
    {"ม็", 'M'}, {"ข", 'K'}, {"ค", 'S'}, {"ม", 'N'}, {"ร", 'R'},
    {"ស្ត", 'K'}, {"ន", 'M'}, {"គ", 'S'}, {"ស", 'N'}, {"ទ", 'R'}};

void replace_all(std::string& s, std::string_view from, std::string_view to) {
  for (size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size()) s.replace(at, from.size(), to);
}

// Local file letters to a-h where a digit follows (after the digits are Latin).
void files_before_digits(std::string& s) {
  for (const auto* files : {THAI_FILES, KHMER_FILES})
    for (int f = 0; f < 8; ++f)
      for (size_t at = 0; (at = s.find(files[f], at)) != std::string::npos;) {
        const size_t next = at + files[f].size();
        if (next < s.size() && s[next] >= '1' && s[next] <= '8') s.replace(at, files[f].size(), 1, char('a' + f));
        else at = next;
      }
}

}  // namespace

std::string move_in_script(const Position& pos, Move m, Script script) {
  const bool thai = script == Script::Thai;
  return san_with(pos, m,
                  {thai ? THAI_LETTERS : KHMER_LETTERS, thai ? THAI_FILES : KHMER_FILES,
                   (thai ? THAI_DIGITS : KHMER_DIGITS) + 1, "×", thai ? "=ม็" : "=ន", true});
}

std::string_view typed_error_string(TypedError e) {
  switch (e) {
    case TypedError::Empty: return "empty";
    case TypedError::Bad: return "bad";
    case TypedError::Illegal: return "illegal";
    case TypedError::Ambiguous: return "ambiguous";
    default: return "";
  }
}

Message typed_error_message(TypedError e, std::string_view text) {
  const size_t b = text.find_first_not_of(" \t\n\r"), end = text.find_last_not_of(" \t\n\r");
  const std::string_view move = b == std::string_view::npos ? "" : text.substr(b, end - b + 1);
  switch (e) {
    case TypedError::Bad: return {Msg::TypedBad, {{"move", move}}};
    case TypedError::Illegal: return {Msg::TypedIllegal, {{"move", move}}};
    case TypedError::Ambiguous: return {Msg::TypedAmbiguous, {{"move", move}}};
    default: return Msg::TypedEmpty;
  }
}

Move parse_typed_move(const Position& pos, std::string_view text, TypedError* why) {
  auto fail = [&](TypedError e) {
    if (why) *why = e;
    return Move();
  };
  if (why) *why = TypedError::None;
  std::string s(text);
  for (int d = 0; d < 10; ++d) {
    replace_all(s, THAI_DIGITS[d], std::string(1, char('0' + d)));
    replace_all(s, KHMER_DIGITS[d], std::string(1, char('0' + d)));
  }
  files_before_digits(s);
  replace_all(s, "×", "x");
  std::erase_if(s, [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '-' || c == ':'; });
  if (text.find_first_not_of(" \t\n\r") == std::string_view::npos) return fail(TypedError::Empty);
  while (!s.empty() && (s.back() == '+' || s.back() == '#' || s.back() == '!' || s.back() == '?')) s.pop_back();
  for (std::string_view promo : {"=M", "=m", "=ม็", "=ន"})
    if (s.size() > promo.size() && s.ends_with(promo)) s.resize(s.size() - promo.size());
  if (s.empty()) return fail(TypedError::Bad);

  MoveList legal;
  generate_legal(pos, legal);
  // Coordinates: from-square, to-square, an 'x' between and an 'm' after allowed.
  auto lower = [](char c) { return char(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c); };
  {
    std::string c;
    for (char ch : s) c += lower(ch);
    if (c.size() >= 4 && c.size() <= 6) {
      std::string_view v = c;
      Square from, to;
      if (parse_square(v.substr(0, 2), from)) {
        v.remove_prefix(2);
        if (!v.empty() && v[0] == 'x') v.remove_prefix(1);
        if (v.size() >= 2 && parse_square(v.substr(0, 2), to) && (v.size() == 2 || v.substr(2) == "m")) {
          for (Move m : legal)
            if (m.from() == from && m.to() == to) return m;
          return fail(TypedError::Illegal);
        }
      }
    }
  }
  // SAN: a piece letter (Latin, either case, or Thai or Khmer), then which one,
  // an optional capture, the square.
  PieceType pt = PAWN;
  bool local = false;
  for (const auto& [word, letter] : LOCAL_PIECES)
    if (s.starts_with(word)) {
      pt = piece_of_letter(letter);
      s.erase(0, word.size());
      local = true;
      break;
    }
  if (!local && !s.empty()) {
    // Either case: no piece letter is also a file letter.
    pt = piece_of_letter(s[0] >= 'a' && s[0] <= 'z' ? char(s[0] - 'a' + 'A') : s[0]);
    if (pt != PAWN) s.erase(0, 1);
  }
  // After the piece, a lone file letter tells two pieces apart (รกง๑: the Ruea on the a-file).
  for (const auto* files : {THAI_FILES, KHMER_FILES})
    for (int f = 0; f < 8; ++f)
      if (s.starts_with(files[f])) s.replace(0, files[f].size(), 1, char('a' + f));
  // [file][rank][x]square
  std::string_view v = s;
  Square to;
  if (v.size() < 2 || !parse_square(v.substr(v.size() - 2), to)) return fail(TypedError::Bad);
  v.remove_suffix(2);
  const bool capture = !v.empty() && v.back() == 'x';
  if (capture) v.remove_suffix(1);
  int from_file = -1, from_rank = -1;
  if (!v.empty() && v[0] >= 'a' && v[0] <= 'h') {
    from_file = v[0] - 'a';
    v.remove_prefix(1);
  }
  if (!v.empty() && v[0] >= '1' && v[0] <= '8') {
    from_rank = v[0] - '1';
    v.remove_prefix(1);
  }
  if (!v.empty() || (pt == PAWN && from_rank >= 0)) return fail(TypedError::Bad);
  Move found;
  const int matches = matching_moves(pos, legal, pt, to, from_file, from_rank, capture ? 1 : -1, false, found);
  if (matches == 1) return found;
  return fail(matches ? TypedError::Ambiguous : TypedError::Illegal);
}

}  // namespace makruk
