#include "pgn.h"

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
  return std::string(action);
}

// A game called off has no result: "*" (PGN's "abandoned"); the rest as they ended.
std::string_view pgn_result(const Game& game) {
  return game.reason() == Reason::Aborted ? "*" : result_string(game.result());
}

std::string termination(Reason r) {
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

// "12." "12..." "12…" or a number glued to a move ("12.e4"): the number's length, 0 if none.
size_t number_prefix(std::string_view t) {
  size_t i = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
  if (i == 0 || i == t.size()) return 0;
  size_t j = i;
  while (j < t.size() && t[j] == '.') ++j;
  if (t.substr(j).starts_with("\u2026")) j += 3;
  return j > i ? j : 0;
}

}  // namespace

std::optional<PgnGame> read_pgn(std::string_view text, Variant fallback, Why error) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // a byte-order mark
  if (text.size() > 1000000) return fail(error, Msg::PgnTooLong), std::nullopt;
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
  for (const auto& [k, v] : g.tags) {
    if (k == "Variant") {
      auto v2 = parse_pgn_variant(v);
      if (!v2) return fail(error, {Msg::PgnVariant, {{"variant", v}}}), std::nullopt;
      g.variant = *v2;
      variantGiven = true;
    } else if (k == "FEN") {
      fen = v;
    } else if (k == "Result" && is_result(v)) {
      g.result = v;
    }
  }
  (void)variantGiven;
  std::string_view rest = text.substr(i);
  // A FEN alone: every rank given, nothing else.
  if (g.tags.empty()) {
    std::string_view t = rest;
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.remove_suffix(1);
    size_t slashes = 0;
    for (char c : t) slashes += c == '/';
    if (slashes == 7 && t.find('\n') == std::string_view::npos) {
      fen = std::string(t);
      rest = {};
    }
  }
  Position pos;
  Message why;
  const std::string start = fen.empty() ? std::string(Position::start_fen(g.variant)) : fen;
  if (!pos.set(start, g.variant, Counting::Automatic, &why))
    return fail(error, {Msg::PgnFen, {{"reason", std::move(why)}}}), std::nullopt;
  g.fen = fen.empty() ? "" : pos.fen();

  // The moves.
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
           rest[end] != '(' && rest[end] != ')' && rest[end] != ';')
      ++end;
    std::string_view token = rest.substr(j, end - j);
    j = end;
    if (depth > 0 || token.starts_with("$")) continue;  // a variation, or a NAG
    if (is_result(token)) {
      g.result = std::string(token);
      break;  // the end of the game
    }
    token.remove_prefix(number_prefix(token));
    while (token.starts_with(".")) token.remove_prefix(1);
    if (token.empty()) continue;  // a move number alone
    const int number = pos.game_ply() / 2 + 1;
    Message sanWhy, coordWhy(Msg::Detail);  // Detail: no coordinates' reason yet
    Move m = parse_san(pos, token, &sanWhy);
    if (m.is_none()) m = parse_move(pos, token, &coordWhy);
    if (m.is_none()) {
      MoveList legal;
      generate_legal(pos, legal);
      // Well-formed coordinates (e6e4) that are not a legal move there are
      // illegal, not unreadable: the coordinates' reason says so.
      const bool coordinates = coordWhy.id != Msg::Detail && coordWhy.id != Msg::MoveMalformed;
      Message reason = legal.size == 0 ? Message(Msg::PgnNoLegalMove) : coordinates ? coordWhy : sanWhy;
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
  if (depth > 0) return fail(error, Msg::PgnVariationOpen), std::nullopt;
  return g;
}

}  // namespace makruk
