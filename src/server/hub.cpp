#include "hub.h"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <boost/json.hpp>

#include "core/movegen.h"
#include "core/notation.h"
#include "qr.h"

namespace makruk::server {

namespace json = boost::json;

namespace {

constexpr size_t MAX_NAME = 40;
constexpr int WRONG_CODES_PER_MINUTE = 10;

std::string hex(const unsigned char* p, size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) s += digits[p[i] >> 4], s += digits[p[i] & 15];
  return s;
}

HttpReply reply(int status, const json::value& v) { return HttpReply{status, json::serialize(v)}; }
HttpReply error_reply(const Error& e) {
  return reply(http_status(e.code), json::object{{"error", e.message}, {"code", error_code_name(e.code)}});
}
HttpReply bad_request(std::string msg) { return error_reply(Error{ErrorCode::BadRequest, std::move(msg)}); }

// Parses a JSON object, or explains why not.
std::optional<json::object> parse_object(const std::string& text, std::string& why) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec) {
    why = "malformed JSON: " + ec.message();
    return std::nullopt;
  }
  if (!v.is_object()) {
    why = "expected a JSON object";
    return std::nullopt;
  }
  return v.as_object();
}

// Reads an optional field of the expected kind; false when present with another kind.
bool get_string(const json::object& o, const char* key, std::string& out) {
  auto it = o.find(key);
  if (it == o.end() || it->value().is_null()) return true;
  if (!it->value().is_string()) return false;
  out = std::string(it->value().as_string());
  return true;
}
bool get_bool(const json::object& o, const char* key, bool& out) {
  auto it = o.find(key);
  if (it == o.end()) return true;
  if (!it->value().is_bool()) return false;
  out = it->value().as_bool();
  return true;
}
bool get_int(const json::object& o, const char* key, int64_t& out, bool& present) {
  auto it = o.find(key);
  present = it != o.end() && !it->value().is_null();
  if (!present) return true;
  if (it->value().is_int64()) out = it->value().as_int64();
  else if (it->value().is_uint64() && it->value().as_uint64() < (1ULL << 62)) out = int64_t(it->value().as_uint64());
  else return false;
  return true;
}

// A display name: trimmed, 1–40 characters of valid UTF-8 without control characters.
std::optional<std::string> clean_name(const std::string& raw, std::string& why) {
  size_t b = raw.find_first_not_of(" \t"), e = raw.find_last_not_of(" \t");
  std::string name = b == std::string::npos ? "" : raw.substr(b, e - b + 1);
  size_t chars = 0;
  for (size_t i = 0; i < name.size(); ++chars) {
    unsigned char c = name[i];
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > name.size() || (n == 1 && c < 0x20) || c == 0x7F) {
      why = "the name must be text without control characters";
      return std::nullopt;
    }
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(name[i + k]) & 0xC0) != 0x80) {
        why = "the name is not valid UTF-8";
        return std::nullopt;
      }
    i += n;
  }
  if (chars == 0 || chars > MAX_NAME) {
    why = "the name must have 1 to " + std::to_string(MAX_NAME) + " characters";
    return std::nullopt;
  }
  return name;
}

json::object party_json(const Party& p) {
  const PartyRecord& r = p.record();
  json::array players;
  for (size_t i = 0; i < p.seats().size(); ++i) {
    const Seat& s = p.seats()[i];
    json::object o{{"seat", i}, {"name", s.name}, {"online", s.connections > 0}, {"host", i == 0}};
    if (i == 1 && p.cpu_level()) {
      o["cpu"] = p.cpu_level();
      o["online"] = true;
    }
    players.push_back(std::move(o));
  }
  json::object o{{"code", r.code},
                 {"variant", r.variant},
                 {"rules", json::object{{"counting", r.counting},
                                        {"showLegal", r.show_legal},
                                        {"swapColors", r.swap_colors},
                                        {"labels", r.labels}}},
                 {"players", std::move(players)},
                 {"status", p.status()}};
  o["fen"] = r.start_fen.empty() ? json::value(nullptr) : json::value(r.start_fen);
  o["spectators"] = p.spectators;
  o["cpu"] = p.cpu_level() ? json::value(p.cpu_level()) : json::value(nullptr);
  o["game"] = p.game() ? json::value(p.game()->id) : json::value(nullptr);
  o["gameNumber"] = p.game() ? p.game()->number : 0;
  return o;
}

json::object state_json(const Party& p) {
  const LiveGame& g = *p.game();
  const Game& game = g.game;
  const Position& pos = game.position();
  json::array moves, san(g.san.begin(), g.san.end()), thai(g.san_thai.begin(), g.san_thai.end()), legal;
  for (const std::string& a : game.record())
    if (a.find(':') == std::string::npos) moves.push_back(json::value(a));
  for (Move m : game.legal_moves()) legal.push_back(json::value(move_to_string(m)));
  json::object o{{"t", "state"},
                 {"game", g.id},
                 {"number", g.number},
                 {"v", g.version},
                 {"variant", p.record().variant},
                 {"white", g.white_seat},
                 {"black", 1 - g.white_seat},
                 {"fen", pos.fen()},
                 {"turn", pos.side_to_move() == WHITE ? "w" : "b"},
                 {"check", pos.in_check()},
                 {"moves", std::move(moves)},
                 {"san", std::move(san)},
                 {"sanThai", std::move(thai)},
                 {"legal", std::move(legal)},
                 {"repetitions", game.repetitions()},
                 {"result", result_string(game.result())}};
  o["lastMove"] = pos.last_move().is_none() ? json::value(nullptr) : json::value(move_to_string(pos.last_move()));
  o["reason"] = game.over() ? json::value(reason_string(game.reason())) : json::value(nullptr);
  const Count& c = pos.count();
  o["count"] = c.running() ? json::value(json::object{{"side", c.side == WHITE ? "w" : "b"},
                                                      {"kind", count_kind_string(c.kind)},
                                                      {"n", c.n},
                                                      {"limit", c.limit}})
                           : json::value(nullptr);
  const bool declare = !game.over() && game.counting() == Counting::Declaration;
  auto can_count = [&](Color side) { return declare && !c.running() && qualifying_count(pos, side).running(); };
  auto can_stop = [&](Color side) { return declare && c.running() && c.side == side; };
  o["canCount"] = json::object{{"w", can_count(WHITE)}, {"b", can_count(BLACK)}};
  o["canStop"] = json::object{{"w", can_stop(WHITE)}, {"b", can_stop(BLACK)}};
  o["canClaim"] = !game.over() && game.variant() == Variant::Ouk && game.repetitions() >= 3;
  return o;
}

std::shared_ptr<const std::string> message(const json::object& o) {
  return std::make_shared<const std::string>(json::serialize(o));
}

}  // namespace

std::string random_token() {
  unsigned char bytes[16];
  if (RAND_bytes(bytes, sizeof bytes) != 1) throw std::runtime_error("no randomness from the OS");
  return hex(bytes, sizeof bytes);
}

std::string hash_token(const std::string& token) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(token.data(), token.size(), digest, &n, EVP_sha256(), nullptr);
  return hex(digest, n);
}

Hub::Hub(Store& store, Post post, std::function<int64_t()> now, int cpu_threads)
    : store_(store), post_(std::move(post)), now_(std::move(now)), rng_(std::random_device{}()), cpu_(cpu_threads) {}

Hub::~Hub() = default;

void Hub::load() {
  for (const PartyData& d : store_.load_all()) {
    Party p = Party::from_record(d);
    std::string code = p.code();
    parties_.emplace(code, std::move(p));
  }
  for (auto& [code, p] : parties_) maybe_cpu(p);
}

Party* Hub::find(const std::string& code) {
  auto it = parties_.find(code);
  return it == parties_.end() ? nullptr : &it->second;
}

std::string Hub::new_code() {
  for (;;) {
    std::string code;
    for (int i = 0; i < 6; ++i) code += CODE_ALPHABET[rng_() % CODE_ALPHABET.size()];
    if (!parties_.count(code)) return code;
  }
}

// Wrong party codes are limited per address, so codes cannot be enumerated.
bool Hub::code_guess_allowed(const std::string& ip, bool wrong) {
  auto& times = wrong_codes_[ip];
  int64_t now = now_();
  while (!times.empty() && times.front() < now - 60000) times.pop_front();
  if (int(times.size()) >= WRONG_CODES_PER_MINUTE) return false;
  if (wrong) times.push_back(now);
  if (times.empty()) wrong_codes_.erase(ip);
  return true;
}

HttpReply Hub::create_party(const std::string& body, const std::string& /*ip*/) {
  std::string why;
  auto o = parse_object(body, why);
  if (!o) return bad_request(why);
  std::string rawName, variant = "makruk", counting = "auto", fen;
  PartyRecord r;
  int64_t cpu = 0;
  bool cpuPresent = false;
  if (!get_string(*o, "name", rawName) || !get_string(*o, "variant", variant) ||
      !get_string(*o, "counting", counting) || !get_bool(*o, "showLegal", r.show_legal) ||
      !get_bool(*o, "swapColors", r.swap_colors) || !get_bool(*o, "labels", r.labels) ||
      !get_int(*o, "cpu", cpu, cpuPresent) || !get_string(*o, "fen", fen))
    return bad_request("a field has the wrong type");
  auto name = clean_name(rawName, why);
  if (!name) return bad_request(why);
  Variant v;
  if (!parse_variant(variant, v)) return bad_request("unknown variant '" + variant + "' (makruk or ouk)");
  if (counting != "auto" && counting != "declare") return bad_request("counting must be 'auto' or 'declare'");
  if (cpuPresent && (cpu < 1 || cpu > 8)) return bad_request("cpu must be a level from 1 to 8");
  if (!fen.empty()) {
    if (fen.size() > 120) return bad_request("fen is too long");
    auto start = Game::create(v, counting == "declare" ? Counting::Declaration : Counting::Automatic, fen, &why);
    if (!start) return bad_request(why);
    if (start->over()) return bad_request("the game is already over in that position");
    fen = start->position().fen();
  }
  r.start_fen = fen;
  r.code = new_code();
  r.variant = std::string(variant_name(v));
  r.counting = counting;
  r.cpu_level = int(cpu);
  r.created_at = now_();
  std::string token = random_token();
  Party p(r);
  try {
    store_.create_party(r, SeatRecord{r.code, 0, *name, hash_token(token)});
    p.seats().push_back(Seat{*name, hash_token(token), 0});
    if (r.cpu_level) {
      int seat;
      p.add_player(store_, "CPU " + std::to_string(r.cpu_level), "", seat);
      p.begin_game(store_, r.created_at);
    }
  } catch (const std::exception& e) {
    return reply(500, json::object{{"error", std::string("storage failed: ") + e.what()}, {"code", "internal"}});
  }
  auto [it, _] = parties_.emplace(r.code, std::move(p));
  maybe_cpu(it->second);
  return reply(201, json::object{{"code", r.code},
                                 {"link", "/p/" + r.code},
                                 {"token", token},
                                 {"seat", 0},
                                 {"party", party_json(it->second)}});
}

Party* Hub::find_guarded(const std::string& code, const std::string& ip, std::optional<Error>& e) {
  Party* p = find(code);
  if (!code_guess_allowed(ip, !p)) e = Error{ErrorCode::RateLimited, "too many wrong codes; wait a minute"};
  else if (!p) e = Error{ErrorCode::NotFound, "no party with code '" + code + "'"};
  return e ? nullptr : p;
}

HttpReply Hub::get_party(const std::string& code, const std::string& ip) {
  std::optional<Error> e;
  Party* p = find_guarded(code, ip, e);
  if (!p) return error_reply(*e);
  return reply(200, json::object{{"party", party_json(*p)}});
}

HttpReply Hub::join(const std::string& code, const std::string& body, const std::string& ip) {
  std::optional<Error> e;
  Party* p = find_guarded(code, ip, e);
  if (!p) return error_reply(*e);
  std::string why;
  auto o = parse_object(body, why);
  if (!o) return bad_request(why);
  std::string rawName, token;
  if (!get_string(*o, "name", rawName) || !get_string(*o, "token", token))
    return bad_request("a field has the wrong type");
  if (!token.empty()) {  // a returning browser keeps its seat
    int seat = p->seat_of_token(hash_token(token));
    if (seat >= 0)
      return reply(200, json::object{{"token", token}, {"seat", seat}, {"party", party_json(*p)}});
  }
  auto name = clean_name(rawName, why);
  if (!name) return bad_request(why);
  token = random_token();
  int seat = -1;
  try {
    if (auto e = p->add_player(store_, *name, hash_token(token), seat)) return error_reply(*e);
  } catch (const std::exception& e) {
    return reply(500, json::object{{"error", std::string("storage failed: ") + e.what()}, {"code", "internal"}});
  }
  if (seat >= 0) broadcast(*p, true, false);
  json::object out{{"token", seat >= 0 ? token : ""}, {"party", party_json(*p)}};
  out["seat"] = seat >= 0 ? json::value(seat) : json::value(nullptr);
  return reply(200, out);
}

HttpReply Hub::qr_svg(const std::string& code, const std::string& base_url, const std::string& ip) {
  std::optional<Error> e;
  if (!find_guarded(code, ip, e)) return error_reply(*e);
  std::string svg = qr_code_svg(base_url + "/p/" + code);
  if (svg.empty()) return reply(500, json::object{{"error", "QR encoding failed"}, {"code", "internal"}});
  return HttpReply{200, svg, "image/svg+xml"};
}

void Hub::send_error(Client& c, const std::string& id, const Error& e) {
  json::object o{{"t", "error"}, {"error", e.message}, {"code", error_code_name(e.code)}};
  if (!id.empty()) o["id"] = id;
  c.send(message(o));
}

void Hub::broadcast(Party& p, bool party_changed, bool state_changed) {
  auto it = watchers_.find(p.code());
  if (it == watchers_.end()) return;
  std::shared_ptr<const std::string> party, state;
  if (party_changed) {
    json::object o = party_json(p);
    o["t"] = "party";
    party = message(o);
  }
  if (state_changed && p.game()) state = message(state_json(p));
  for (const auto& c : it->second) {
    if (party) c->send(party);
    if (state) c->send(state);
  }
}

void Hub::hello(const std::shared_ptr<Client>& c, const std::string& code, const std::string& token) {
  std::optional<Error> e;
  Party* p = find_guarded(code, c->ip, e);
  if (!p) return send_error(*c, "", *e);
  if (c->joined) on_close(c);  // a second hello moves the connection
  int seat = token.empty() ? -1 : p->seat_of_token(hash_token(token));
  if (!token.empty() && seat < 0) return send_error(*c, "", Error{ErrorCode::Forbidden, "unknown token for this party"});
  c->code = code;
  c->seat = seat;
  c->joined = true;
  watchers_[code].insert(c);
  if (seat >= 0) ++p->seats()[size_t(seat)].connections;
  else ++p->spectators;
  json::object w{{"t", "welcome"}, {"host", seat == 0}};
  w["seat"] = seat >= 0 ? json::value(seat) : json::value(nullptr);
  c->send(message(w));
  json::object o = party_json(*p);
  o["t"] = "party";
  c->send(message(o));
  if (p->game()) c->send(message(state_json(*p)));
  broadcast(*p, true, false);
}

void Hub::on_close(const std::shared_ptr<Client>& c) {
  if (!c->joined) return;
  auto it = watchers_.find(c->code);
  if (it != watchers_.end()) {
    it->second.erase(c);
    if (it->second.empty()) watchers_.erase(it);
  }
  c->joined = false;
  if (Party* p = find(c->code)) {
    if (c->seat >= 0) --p->seats()[size_t(c->seat)].connections;
    else --p->spectators;
    broadcast(*p, true, false);
  }
}

void Hub::on_message(const std::shared_ptr<Client>& c, const std::string& text) {
  // Rate limit: a bucket of 20 messages refilled at 20 a second.
  int64_t now = now_();
  c->tokens = std::min(20.0, c->tokens + double(now - c->last_refill) * 0.02);
  c->last_refill = now;
  if (c->tokens < 1) {
    send_error(*c, "", Error{ErrorCode::RateLimited, "too many messages; slow down"});
    if (++c->strikes > 50) c->close();
    return;
  }
  c->tokens -= 1;

  std::string why;
  auto o = parse_object(text, why);
  if (!o) return send_error(*c, "", Error{ErrorCode::BadRequest, why});
  std::string type, id, code, token, move;
  int64_t version = -1;
  bool hasVersion = false;
  if (!get_string(*o, "t", type) || !get_string(*o, "id", id) || !get_string(*o, "code", code) ||
      !get_string(*o, "token", token) || !get_string(*o, "move", move) || !get_int(*o, "v", version, hasVersion))
    return send_error(*c, id, Error{ErrorCode::BadRequest, "a field has the wrong type"});
  if (id.size() > 64) return send_error(*c, "", Error{ErrorCode::BadRequest, "id too long"});

  if (type == "ping") return c->send(message(json::object{{"t", "pong"}}));
  if (type == "hello") return hello(c, code, token);
  if (!c->joined) return send_error(*c, id, Error{ErrorCode::BadRequest, "say hello first"});
  Party* p = find(c->code);
  if (!p) return send_error(*c, id, Error{ErrorCode::NotFound, "the party is gone"});
  if (type == "sync") {
    json::object po = party_json(*p);
    po["t"] = "party";
    c->send(message(po));
    if (p->game()) c->send(message(state_json(*p)));
    return;
  }

  std::optional<Error> e;
  bool party_changed = false;
  try {
    if (type == "start") {
      e = p->start(store_, c->seat, now);
      party_changed = true;
    } else if (type == "rematch") {
      e = p->rematch(store_, c->seat, now);
      party_changed = true;
    } else if (type == "move" || type == "count" || type == "stop" || type == "claim" || type == "resign") {
      if (!hasVersion) e = Error{ErrorCode::BadRequest, "'v' (the game version you saw) is required"};
      else if (type == "move" && move.empty()) e = Error{ErrorCode::BadRequest, "'move' is required"};
      else e = p->act(store_, c->seat, type, move, int(version), now);
      party_changed = p->game() && p->game()->game.over();
    } else {
      e = Error{ErrorCode::BadRequest, "unknown message type '" + type + "'"};
    }
  } catch (const std::exception& ex) {
    e = Error{ErrorCode::Conflict, std::string("storage failed: ") + ex.what()};
  }
  if (e) return send_error(*c, id, *e);
  json::object ack{{"t", "ack"}, {"v", p->game() ? p->game()->version : 0}};
  if (!id.empty()) ack["id"] = id;
  c->send(message(ack));
  after_change(*p, party_changed);
}

void Hub::after_change(Party& p, bool party_changed) {
  broadcast(p, party_changed, true);
  maybe_cpu(p);
}

void Hub::maybe_cpu(Party& p) {
  if (!p.cpu_level() || !p.game() || p.game()->game.over() || cpu_busy_.count(p.code())) return;
  const LiveGame& g = *p.game();
  if (g.seat_of(g.game.position().side_to_move()) != 1) return;
  cpu_busy_.insert(p.code());
  std::string code = p.code();
  int64_t game = g.id;
  int version = g.version;
  cpu_.submit(CpuJob{g.game.position(), p.cpu_level(), [this, code, game, version](std::vector<std::string> actions) {
                       post_([this, code, game, version, actions = std::move(actions)]() mutable {
                         on_cpu_result(code, game, version, std::move(actions));
                       });
                     }});
}

void Hub::on_cpu_result(const std::string& code, int64_t game, int version, std::vector<std::string> actions) {
  cpu_busy_.erase(code);
  Party* p = find(code);
  if (!p || !p->game() || p->game()->id != game || p->game()->version != version) return;
  for (const std::string& a : actions) {
    size_t colon = a.find(':');
    std::string type = colon == std::string::npos ? "move" : a.substr(0, colon);
    std::optional<Error> e;
    try {
      e = p->act(store_, 1, type, type == "move" ? a : "", p->game()->version, now_());
    } catch (const std::exception&) {
      return;  // storage failed: the CPU's turn stays open; nothing was applied
    }
    if (e) break;
  }
  after_change(*p, p->game()->game.over());
}

}  // namespace makruk::server
