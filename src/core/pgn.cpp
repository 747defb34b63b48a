#include "pgn.h"

#include <algorithm>
#include <cctype>

#include "movegen.h"
#include "notation.h"

namespace makruk {

namespace {

const char* side_word(char side) { return side == 'w' ? "White" : "Black"; }

// A comment for an action that is not a move ("count:w" and the like).
std::string action_comment(std::string_view action) {
  if (action == "expire") return "The table's time ran out";
  const size_t colon = action.find(':');
  if (colon == std::string_view::npos || colon + 2 != action.size()) return std::string(action);
  const std::string_view verb = action.substr(0, colon);
  const std::string who = side_word(action.back());
  if (verb == "count") return who + " starts counting";
  if (verb == "stop") return who + " stops counting";
  if (verb == "claim") return who + " claims a draw";
  if (verb == "resign") return who + " resigns";
  if (verb == "offer") return who + " offers a draw";
  if (verb == "accept") return who + " accepts the draw";
  if (verb == "decline") return who + " declines the draw";
  if (verb == "abort") return who + " made no first move: the game is called off";
  if (verb == "time") return std::string(side_word(action.back())) + "'s time ran out";
  return std::string(action);
}

// A game called off has no result: "*" (PGN's "abandoned"); the rest as they ended.
std::string_view pgn_result(const Game& game) {
  return game.reason() == Reason::Aborted ? "*" : result_string(game.result());
}

std::string termination(Reason r) {
  if (r == Reason::Time) return std::string("time forfeit");  // PGN's own word for it
  std::string s(reason_string(r));
  for (char& c : s)
    if (c == '-') c = ' ';
  return s;
}

std::string quoted(std::string_view v) {
  std::string out = "\"";
  for (char c : v) {
    if (c == '"' || c == '\\') out += '\\';
    out += (c == '\n' || c == '\r') ? ' ' : c;
  }
  return out + "\"";
}

// Tokens joined by spaces, in lines of at most 80 characters.
class Lines {
 public:
  void add(const std::string& token) {
    if (!line_.empty() && line_.size() + 1 + token.size() > 80) flush();
    if (!line_.empty()) line_ += ' ';
    line_ += token;
  }
  std::string done() {
    flush();
    return out_;
  }

 private:
  void flush() {
    if (line_.empty()) return;
    out_ += line_ + "\n";
    line_.clear();
  }
  std::string out_, line_;
};

bool same_name(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

void fail(const Why& error, Message why) { error(std::move(why)); }

}  // namespace

std::string_view pgn_variant_name(Variant v) { return v == Variant::Makruk ? "makruk" : "cambodian"; }

std::optional<Variant> parse_pgn_variant(std::string_view name) {
  for (std::string_view n : {"makruk", "thai", "thai chess"})
    if (same_name(name, n)) return Variant::Makruk;
  for (std::string_view n : {"cambodian", "ouk", "ouk chatrang", "ouk chaktrang", "kar ouk"})
    if (same_name(name, n)) return Variant::Ouk;
  return std::nullopt;
}

std::string write_pgn(const Game& game, const PgnTags& tags) {
  auto given = [&](std::string_view name) -> const std::string* {
    for (const auto& [k, v] : tags)
      if (k == name) return &v;
    return nullptr;
  };
  std::string out;
  auto tag = [&](std::string_view name, std::string_view value) {
    out += "[" + std::string(name) + " " + quoted(value) + "]\n";
  };
  static constexpr std::string_view ROSTER[] = {"Event", "Site", "Date", "Round", "White", "Black"};
  for (std::string_view name : ROSTER) tag(name, given(name) ? *given(name) : std::string("?"));
  tag("Result", pgn_result(game));
  for (const auto& [k, v] : tags) {
    bool known = k == "Result" || k == "Variant" || k == "FEN" || k == "SetUp" || k == "Termination";
    for (std::string_view name : ROSTER) known = known || k == name;
    if (!known) tag(k, v);
  }
  tag("Variant", pgn_variant_name(game.variant()));
  std::string error;
  auto replay = Game::create(game.variant(), game.counting(), game.start_fen(), &error);
  const std::string start = replay ? replay->position().fen() : game.start_fen();
  Position usual;
  usual.set(Position::start_fen(game.variant()), game.variant(), game.counting(), &error);
  if (start != usual.fen()) {
    tag("FEN", start);
    tag("SetUp", "1");
  }
  if (game.over()) tag("Termination", termination(game.reason()));
  tag("Counting", game.counting() == Counting::Declaration ? "declare" : "auto");
  out += "\n";

  Lines lines;
  bool numbered = false;  // the next Black move needs its number ("12...")
  if (replay) {
    Position pos = replay->position();
    for (const std::string& action : game.record()) {
      if (!is_move_action(action)) {
        lines.add("{" + action_comment(action) + "}");
        numbered = false;
        continue;
      }
      Move m = parse_move(pos, action);
      if (m.is_none()) break;  // cannot happen: only legal moves are recorded
      const int number = pos.game_ply() / 2 + 1;
      if (pos.side_to_move() == WHITE) lines.add(std::to_string(number) + ".");
      else if (!numbered) lines.add(std::to_string(number) + "...");
      numbered = pos.side_to_move() == WHITE;
      lines.add(move_to_san(pos, m));
      pos.do_move(m);
    }
  }
  if (game.over() && game.reason() != Reason::None) lines.add("{" + termination(game.reason()) + "}");
  lines.add(std::string(pgn_result(game)));
  return out + lines.done();
}

namespace {

// Reads `[Name "value"]` at s[i] (past '['); false when malformed.
bool read_tag(std::string_view s, size_t& i, std::string& name, std::string& value) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  const size_t n0 = i;
  while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
  name = std::string(s.substr(n0, i - n0));
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  if (name.empty() || i >= s.size() || s[i] != '"') return false;
  ++i;
  value.clear();
  for (;; ++i) {
    if (i >= s.size() || s[i] == '\n') return false;
    if (s[i] == '\\' && i + 1 < s.size()) {
      value += s[++i];
      continue;
    }
    if (s[i] == '"') break;
    value += s[i];
  }
  ++i;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  if (i >= s.size() || s[i] != ']') return false;
  ++i;
  return true;
}

bool is_result(std::string_view t) { return t == "1-0" || t == "0-1" || t == "1/2-1/2" || t == "*"; }

// A result as written elsewhere ("½-½", "1/2"), in PGN's form; empty if none.
std::string result_token(std::string_view t) {
  if (is_result(t)) return std::string(t);
  if (t == "\u00BD-\u00BD" || t == "1/2" || t == "\u00BD") return "1/2-1/2";
  return "";
}

// "12." "12..." "12…" "12)" or a number glued to a move ("12.e4"), in ASCII
// or Thai digits: the number's length, 0 if none.
size_t number_prefix(std::string_view t) {
  size_t i = 0;
  for (;;) {
    if (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) {
      ++i;
    } else if (i + 2 < t.size() && static_cast<unsigned char>(t[i]) == 0xE0 &&
               static_cast<unsigned char>(t[i + 1]) == 0xB9 && static_cast<unsigned char>(t[i + 2]) >= 0x90 &&
               static_cast<unsigned char>(t[i + 2]) <= 0x99) {
      i += 3;
    } else {
      break;
    }
  }
  if (i == 0 || i == t.size()) return 0;
  size_t j = i;
  while (j < t.size() && (t[j] == '.' || t[j] == ')')) ++j;
  if (t.substr(j).starts_with("\u2026")) j += 3;
  return j > i ? j : 0;
}

// Spaces as other pages write them (no-break, narrow, thin, ideographic) as
// plain ones.
std::string plain_spaces(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const std::string_view rest = text.substr(i);
    size_t n = 0;
    if (rest.starts_with("\u00A0")) n = 2;
    else if (rest.starts_with("\u202F") || rest.starts_with("\u2009") || rest.starts_with("\u3000")) n = 3;
    if (n) {
      out += ' ';
      i += n - 1;
    } else {
      out += text[i];
    }
  }
  return out;
}

bool is_file(char c) { return c >= 'a' && c <= 'h'; }
bool is_rank(char c) { return c >= '1' && c <= '8'; }
bool is_square(std::string_view t) { return t.size() == 2 && is_file(t[0]) && is_rank(t[1]); }
// A piece letter standing alone ("N b 1 - c 3"), of any notation read here.
bool is_piece_letter(std::string_view t) {
  return t.size() == 1 && std::string_view("KMSNRPBQFkmsnrq").find(t[0]) != std::string_view::npos;
}

// Long algebraic written with spaces ("c 3 - c 4", "N b 1 - c 3"): the
// pieces of one move joined again. Tokens that are not such pieces pass as
// they are.
std::vector<std::string> joined_moves(std::vector<std::string> tokens) {
  std::vector<std::string> out;
  for (size_t i = 0; i < tokens.size(); ++i) {
    std::string t = tokens[i];
    // A file and a rank apart: one square.
    if (t.size() == 1 && is_file(t[0]) && i + 1 < tokens.size() && tokens[i + 1].size() == 1 && is_rank(tokens[i + 1][0]))
      t += tokens[++i];
    // A piece letter alone before a square.
    if (is_piece_letter(t) && i + 1 < tokens.size()) {
      std::string next = tokens[i + 1];
      if (next.size() == 1 && is_file(next[0]) && i + 2 < tokens.size() && tokens[i + 2].size() == 1 &&
          is_rank(tokens[i + 2][0])) {
        t += next + tokens[i + 2];
        i += 2;
      } else if (next.size() >= 2 && is_square(std::string_view(next).substr(0, 2))) {
        t += next;
        ++i;
      }
    }
    // A dash, 'x' or ':' alone between two squares.
    if (!out.empty() && (t == "-" || t == "x" || t == ":") && i + 1 < tokens.size()) {
      std::string to = tokens[i + 1];
      size_t used = 1;
      if (to.size() == 1 && is_file(to[0]) && i + 2 < tokens.size() && tokens[i + 2].size() == 1 &&
          is_rank(tokens[i + 2][0])) {
        to += tokens[i + 2];
        used = 2;
      }
      const std::string& before = out.back();
      if (before.size() >= 2 && is_square(std::string_view(before).substr(before.size() - 2)) && to.size() >= 2 &&
          is_square(std::string_view(to).substr(0, 2))) {
        out.back() += t + to;
        i += used;
        continue;
      }
    }
    out.push_back(std::move(t));
  }
  return out;
}

// A move in the letters other sites use, read as ours: PlayOK's and
// SchemingMind's B (khon) and Q (met), F (the met as a Ferz), the promoted
// pawn as P (which may also be read as a pawn: both readings are tried) and
// promotions written "=P", "=Q", "=F" or a letter after the square; then
// whatever the move box reads (notation.h: parse_typed_move). A null move
// when none of its readings is legal, with the reason.
Move read_foreign(const Position& pos, std::string token, TypedError& why) {
  while (!token.empty() && (token.back() == '+' || token.back() == '#' || token.back() == '!' || token.back() == '?'))
    token.pop_back();
  // ("=M" is the move box's own.)
  for (std::string_view promo : {"=P", "=Q", "=F", "=p", "=q", "=f"})
    if (token.size() > promo.size() && token.ends_with(promo)) token.resize(token.size() - promo.size());
  // "dxc6M": a pawn's promotion written without '='.
  if (token.size() >= 3 && std::string_view("MQFP").find(token.back()) != std::string_view::npos &&
      is_rank(token[token.size() - 2]))
    token.pop_back();
  std::vector<std::string> readings;
  if (!token.empty() && (token[0] == 'B' || token[0] == 'Q' || token[0] == 'F'))
    readings.push_back((token[0] == 'B' ? "S" : "M") + token.substr(1));
  else if (!token.empty() && token[0] == 'P')
    readings = {"M" + token.substr(1), token.substr(1)};  // the promoted pawn, or a pawn
  else
    readings.push_back(token);
  Move found;
  why = TypedError::Bad;
  for (const std::string& r : readings) {
    TypedError e = TypedError::None;
    Move m = parse_typed_move(pos, r, &e);
    if (!m.is_none()) {
      if (!found.is_none() && !(found == m)) {
        why = TypedError::Ambiguous;  // two readings, two moves: no guess
        return Move();
      }
      found = m;
    } else if (e == TypedError::Illegal || e == TypedError::Ambiguous) {
      if (why != TypedError::Ambiguous) why = e;
    }
  }
  if (!found.is_none()) why = TypedError::None;
  return found;
}

}  // namespace

std::optional<PgnGame> read_pgn(std::string_view raw, Variant fallback, Why error) {
  if (raw.starts_with("\xEF\xBB\xBF")) raw.remove_prefix(3);  // a byte-order mark
  if (raw.size() > 1000000) return fail(error, Msg::PgnTooLong), std::nullopt;
  const std::string plain = plain_spaces(raw);
  std::string_view text = plain;
  PgnGame g;
  g.variant = fallback;
  size_t i = 0;
  auto skip_space = [&] {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  };
  // The tags.
  int line = 1;
  for (skip_space(); i < text.size() && text[i] == '['; skip_space()) {
    for (size_t k = 0; k < i; ++k) line += text[k] == '\n';
    ++i;
    std::string name, value;
    if (!read_tag(text, i, name, value)) {
      fail(error, {Msg::PgnTag, {{"line", line}}});
      return std::nullopt;
    }
    line = 1;
    g.tags.emplace_back(std::move(name), std::move(value));
  }
  std::string fen;
  bool variantGiven = false;
  // Tag names in any case ("variant", "fen").
  auto named = [](std::string_view name, std::string_view want) {
    return name.size() == want.size() &&
           std::equal(name.begin(), name.end(), want.begin(), [](char a, char b) { return std::tolower(a) == std::tolower(b); });
  };
  for (const auto& [k, v] : g.tags) {
    if (named(k, "Variant")) {
      auto v2 = parse_pgn_variant(v);
      if (!v2) return fail(error, {Msg::PgnVariant, {{"variant", v}}}), std::nullopt;
      g.variant = *v2;
      variantGiven = true;
    } else if (named(k, "FEN")) {
      fen = v;
    } else if (named(k, "Result") && !result_token(v).empty()) {
      g.result = result_token(v);
    }
  }
  (void)variantGiven;
  std::string_view rest = text.substr(i);
  // A FEN alone, or on the first line before the moves: every rank given.
  if (g.tags.empty()) {
    std::string_view t = rest;
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.remove_prefix(1);
    const size_t eol = t.find('\n');
    std::string_view line = t.substr(0, eol);
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.remove_suffix(1);
    size_t slashes = 0;
    for (char c : line) slashes += c == '/';
    if (slashes == 7) {
      fen = std::string(line);
      rest = eol == std::string_view::npos ? std::string_view{} : t.substr(eol + 1);
    }
  }
  Position pos;
  Message why;
  const std::string start = fen.empty() ? std::string(Position::start_fen(g.variant)) : fen;
  if (!pos.set(start, g.variant, Counting::Automatic, &why))
    return fail(error, {Msg::PgnFen, {{"reason", std::move(why)}}}), std::nullopt;
  g.fen = fen.empty() ? "" : pos.fen();

  // The moves: the movetext's tokens first (comments, variations and NAGs
  // left out, the spaced long algebraic joined), up to a result.
  std::vector<std::string> tokens;
  size_t j = 0;
  int depth = 0;  // inside variations
  while (j < rest.size()) {
    const char c = rest[j];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++j;
      continue;
    }
    if (c == '{') {
      const size_t end = rest.find('}', j);
      if (end == std::string_view::npos) return fail(error, Msg::PgnComment), std::nullopt;
      j = end + 1;
      continue;
    }
    if (c == ';') {
      const size_t end = rest.find('\n', j);
      j = end == std::string_view::npos ? rest.size() : end + 1;
      continue;
    }
    if (c == '(') {
      ++depth;
      ++j;
      continue;
    }
    if (c == ')') {
      if (depth == 0) return fail(error, Msg::PgnVariationCloses), std::nullopt;
      --depth;
      ++j;
      continue;
    }
    size_t end = j;
    while (end < rest.size() && !std::isspace(static_cast<unsigned char>(rest[end])) && rest[end] != '{' &&
           rest[end] != '(' && rest[end] != ';')
      ++end;
    // A ')' ends a token unless it closes a move number ("12)").
    std::string_view token = rest.substr(j, end - j);
    if (const size_t close = token.find(')'); close != std::string_view::npos) {
      const size_t number = number_prefix(token);
      if (!(number && close < number)) token = token.substr(0, close);
    }
    j += token.size();
    if (depth > 0 || token.starts_with("$")) continue;  // a variation, or a NAG
    if (std::string r = result_token(token); !r.empty()) {
      g.result = std::move(r);
      break;  // the end of the game
    }
    token.remove_prefix(number_prefix(token));
    while (token.starts_with(".")) token.remove_prefix(1);
    // A move number alone, or an annotation or draw mark apart ("!?", "=").
    if (token.empty() || token.find_first_not_of("!?=") == std::string_view::npos) continue;
    tokens.emplace_back(token);
    if (tokens.size() > 20000) return fail(error, Msg::PgnTooManyMoves), std::nullopt;
  }
  if (depth > 0) return fail(error, Msg::PgnVariationOpen), std::nullopt;
  for (const std::string& token : joined_moves(std::move(tokens))) {
    const int number = pos.game_ply() / 2 + 1;
    Message sanWhy, coordWhy(Msg::Detail);  // Detail: no coordinates' reason yet
    Move m = parse_san(pos, token, &sanWhy);
    if (m.is_none()) m = parse_move(pos, token, &coordWhy);
    TypedError typed = TypedError::None;
    if (m.is_none()) m = read_foreign(pos, token, typed);
    if (m.is_none()) {
      MoveList legal;
      generate_legal(pos, legal);
      // Well-formed coordinates (e6e4) that are not a legal move there, or a
      // move another notation names but that is not legal, are illegal, not
      // unreadable; two readings of one text, ambiguous.
      const bool coordinates = coordWhy.id != Msg::Detail && coordWhy.id != Msg::MoveMalformed;
      Message reason = legal.size == 0                         ? Message(Msg::PgnNoLegalMove)
                       : coordinates                           ? coordWhy
                       : sanWhy.id != Msg::SanMalformed        ? sanWhy
                       : typed == TypedError::Illegal          ? Message{Msg::MoveIllegal, {{"move", token}}}
                       : typed == TypedError::Ambiguous        ? Message{Msg::SanAmbiguous, {{"move", token}}}
                                                               : Message{Msg::PgnUnreadable, {{"move", token}}};
      return fail(error, {Msg::PgnMove,
                          {{"number", number},
                           {"side", side_arg(pos.side_to_move() == WHITE)},
                           {"move", token},
                           {"reason", std::move(reason)}}}),
             std::nullopt;
    }
    g.moves.push_back(move_to_string(m));
    pos.do_move(m);
    if (g.moves.size() > 2000) return fail(error, Msg::PgnTooManyMoves), std::nullopt;
  }
  return g;
}

std::vector<std::string_view> split_pgn_games(std::string_view text) {
  std::vector<std::string_view> games;
  size_t start = 0;
  bool moves = false;   // the current game's moves have begun
  bool comment = false;  // inside { }
  for (size_t i = 0; i < text.size();) {
    const size_t eol = std::min(text.find('\n', i), text.size());
    std::string_view line = text.substr(i, eol - i);
    size_t lead = 0;
    while (lead < line.size() && (line[lead] == ' ' || line[lead] == '\t' || line[lead] == '\r')) ++lead;
    if (!comment && lead < line.size()) {
      if (line[lead] == '[') {
        if (moves) {  // the next game's tags
          games.push_back(text.substr(start, i - start));
          start = i;
          moves = false;
        }
      } else if (!line.substr(lead).starts_with("\xEF\xBB\xBF")) {
        moves = true;
      }
    }
    for (char c : line) {
      if (c == '{') comment = true;
      else if (c == '}') comment = false;
      else if (c == ';' && !comment) break;  // the rest of the line is a comment
    }
    i = eol + 1;
  }
  if (start < text.size() || games.empty()) games.push_back(text.substr(start));
  return games;
}

}  // namespace makruk
