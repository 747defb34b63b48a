// The hub finding opponents: seeks, pairings (with other instances through
// the bus) and the lobby counts.
#include "server/tables/hub.h"

#include <boost/json.hpp>

#include "server/tables/hub_detail.h"

namespace makruk::server {

namespace json = boost::json;
using namespace detail;

// ---------------------------------------------------------------- finding an opponent

void Hub::seek(const std::shared_ptr<Client>& c, const SeekWish& wish, const std::string& raw_name,
               const std::string& browser, const std::string& code, const std::string& token) {
  auto bad = [&](Message why) { send_error(*c, "", Error{ErrorCode::BadRequest, std::move(why)}); };
  if (!wish.variant.empty() && wish.variant != "makruk" && wish.variant != "ouk") return bad(Msg::SeekVariant);
  if (!wish.counting.empty() && wish.counting != "auto" && wish.counting != "declare") return bad(Msg::SeekCounting);
  if (!wish.mode.empty() && wish.mode != "live" && wish.mode != "turn") return bad(Msg::SeekMode);
  if (browser.size() > 64) return bad(Msg::BrowserTooLong);
  Message why;
  auto name = clean_name(raw_name, why);
  if (!name) return bad(why);
  const int64_t t = now();
  const bool waiting = seekers_.count(c->id) != 0;
  // The shared queue, read when first needed and then once only (for the
  // limit and the pairing), so a refused request costs no read; nothing when
  // there is no bus or it does not answer (this instance then pairs alone).
  std::optional<std::vector<std::string>> queue;
  bool read = false;
  auto shared = [&]() -> const std::optional<std::vector<std::string>>& {
    if (bus_ && !read) queue = bus_->seeks();
    read = true;
    return queue;
  };
  if (!waiting && limits_.seeks_per_address && waiting_from(c->ip, shared()) >= limits_.seeks_per_address)
    return send_error(*c, "", Error{ErrorCode::RateLimited, Msg::LimitSeekers});
  if (!seeks_.allow(c->ip, t, limits_.seek_per_minute))
    return send_error(*c, "", Error{ErrorCode::RateLimited, Msg::LimitSeeks});
  // A pairing makes a table, and counts against the address's new tables
  // (pair()): past that limit, an address waits its minute here too, so that
  // pairing oneself makes no more tables than creating them.
  if (!waiting && !creates_.allow(c->ip, t, limits_.create_per_minute, false))
    return send_error(*c, "", Error{ErrorCode::RateLimited, Msg::LimitTables});
  c->greeted = true;  // a seeker has said who it is: the hello deadline does not apply
  // The front of the queue is the earliest time there is.
  const int64_t since = may_seek_at_front(c, code, token) ? 0 : t;
  if (shared() && seek_shared(c, wish, *name, browser, since, *queue)) return;
  uint64_t replaced = 0;
  matchmaker_.pair_same_address = limits_.pair_same_address;
  auto pairing = matchmaker_.seek(Seek{c->id, browser, c->ip, *name, wish, since, ""}, &replaced);
  if (replaced) {
    auto it = seekers_.find(replaced);
    if (auto old = it == seekers_.end() ? nullptr : it->second.lock())
      old->send(message(json::object{{"t", "seek-ended"}, {"reason", "replaced"}}));
    seekers_.erase(replaced);
  }
  seekers_[c->id] = c;
  if (pairing) {
    pair(*pairing);  // both leave seekers_ there
  } else {
    c->send(message(json::object{{"t", "seeking"}, {"variant", wish.variant}, {"counting", wish.counting},
                                 {"mode", wish.mode}}));
  }
  lobby_changed();
}

namespace {

// A seek in the shared queue, as text, and back.
std::string seek_entry(const Seek& s) {
  return json::serialize(json::object{{"i", s.instance}, {"c", s.id}, {"b", s.browser}, {"a", s.ip}, {"n", s.name},
                                      {"v", s.wish.variant}, {"k", s.wish.counting}, {"m", s.wish.mode},
                                      {"s", s.since}});
}

std::optional<Seek> parse_seek(const std::string& text) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec || !v.is_object()) return std::nullopt;
  const json::object& o = v.as_object();
  Seek s;
  int64_t id = 0, since = 0;
  bool present = false;
  if (!get_string(o, "i", s.instance) || !get_string(o, "b", s.browser) || !get_string(o, "a", s.ip) ||
      !get_string(o, "n", s.name) || !get_string(o, "v", s.wish.variant) || !get_string(o, "k", s.wish.counting) ||
      !get_string(o, "m", s.wish.mode) || !get_int(o, "c", id, present) || !present || !get_int(o, "s", since, present))
    return std::nullopt;
  s.id = uint64_t(id);
  s.since = since;
  return s;
}

}  // namespace

size_t Hub::waiting_from(const std::string& ip, const std::optional<std::vector<std::string>>& queue) const {
  if (!bus_) return matchmaker_.waiting_from(ip);
  size_t n = 0;
  if (queue)
    for (const std::string& text : *queue)
      if (auto s = parse_seek(text); s && s->ip == ip) ++n;
  return n;
}

bool Hub::seek_shared(const std::shared_ptr<Client>& c, const SeekWish& wish, const std::string& name,
                      const std::string& browser, int64_t t, const std::vector<std::string>& queue) {
  if (auto old = shared_seeks_.find(c->id); old != shared_seeks_.end()) {
    bus_->take_seek(old->second);
    shared_seeks_.erase(old);
  }
  Seek mine{c->id, browser, c->ip, name, wish, t, bus_->id()};
  for (const std::string& text : queue) {
    auto other = parse_seek(text);
    if (!other || !bus_->is_alive(other->instance)) {  // malformed, or its instance is gone
      bus_->take_seek(text);
      continue;
    }
    if (other->instance == mine.instance && other->id == mine.id) continue;  // taken out above
    if (!other->browser.empty() && other->browser == browser) {  // one entry per browser: this one replaces it
      if (bus_->take_seek(text) && other->instance == mine.instance) {
        auto it = seekers_.find(other->id);
        if (auto old = it == seekers_.end() ? nullptr : it->second.lock())
          old->send(message(json::object{{"t", "seek-ended"}, {"reason", "replaced"}}));
        seekers_.erase(other->id);
        shared_seeks_.erase(other->id);
      }
      continue;
    }
    if (!limits_.pair_same_address && other->ip == c->ip) continue;  // nor one's own address
    auto agreed = Matchmaker::agree(other->wish, wish);
    if (!agreed || !bus_->take_seek(text)) continue;  // not compatible, or another instance took it first
    if (other->instance == mine.instance) shared_seeks_.erase(other->id);
    seekers_[c->id] = c;
    pair(Pairing{*other, mine, *agreed});
    lobby_changed();
    return true;
  }
  const std::string entry = seek_entry(mine);
  if (!bus_->add_seek(entry, mine.since)) return false;
  shared_seeks_[c->id] = entry;
  seekers_[c->id] = c;
  c->send(message(json::object{{"t", "seeking"}, {"variant", wish.variant}, {"counting", wish.counting},
                               {"mode", wish.mode}}));
  lobby_changed();
  return true;
}

bool Hub::may_seek_at_front(const std::shared_ptr<Client>& c, const std::string& raw_code, const std::string& token) {
  if (raw_code.empty() || token.empty() || token.size() > 64 || !credential_lookup_allowed(c->ip)) return false;
  Table* p = find(normalise_code(raw_code));
  const int seat = p ? seat_of_token(*p, token, c->ip) : -1;
  if (seat < 0) {
    wrong_credential(c->ip);
    return false;
  }
  const int missing = p->called_off_seat();
  if (missing < 0 || missing == seat || now() - p->record().expired_at > limits_.front_again_ms) return false;
  return fronts_taken_.emplace(p->code(), now()).second;  // once
}

void Hub::unseek(const std::shared_ptr<Client>& c, bool tell) {
  // Cancelling is answered even when nothing waited (a pairing may have come first).
  if (tell) c->send(message(json::object{{"t", "seek-ended"}, {"reason", "cancelled"}}));
  if (auto shared = shared_seeks_.find(c->id); c->id && shared != shared_seeks_.end()) {
    if (bus_) bus_->take_seek(shared->second);
    shared_seeks_.erase(shared);
    seekers_.erase(c->id);
    lobby_changed();
    return;
  }
  if (!c->id || !matchmaker_.cancel(c->id)) return;
  seekers_.erase(c->id);
  lobby_changed();
}

// A table for two paired seekers, started at once: the one who waited longer
// is the host (and White in the first game).
void Hub::pair(const Pairing& pairing) {
  const int64_t t = now();
  TableRecord r;
  r.code = new_code();
  r.variant = pairing.agreed.variant;
  r.counting = pairing.agreed.counting;
  r.mode = pairing.agreed.mode;
  r.created_at = t;
  r.invite_key = random_token().substr(0, 16);
  const std::string tokens[2] = {random_token(), random_token()};
  const Seek* seekers[2] = {&pairing.first, &pairing.second};
  Table p(r);
  try {
    store_.create_table(r, SeatRecord{r.code, 0, seekers[0]->name, hash_token(tokens[0])});
    p.seats().push_back(Seat{seekers[0]->name, hash_token(tokens[0]), 0});
    int seat = -1;
    p.add_player(store_, seekers[1]->name, hash_token(tokens[1]), seat);
    // A turn-based game begins at once (nobody need be there); a live one
    // when both players have come to the table.
    if (r.mode == "turn") p.begin_game(store_, t);
    else p.arrive_by = t + limits_.pairing_arrival_ms;
  } catch (const std::exception& e) {
    for (const Seek* s : seekers) {
      auto it = seekers_.find(s->id);
      auto c = it == seekers_.end() ? nullptr : it->second.lock();
      if (c) send_error(*c, "", Error{ErrorCode::Conflict, {Msg::StorageFailed, {{"detail", e.what()}}}});
    }
    return;
  }
  for (const Seek* s : seekers) creates_.allow(s->ip, t, limits_.create_per_minute);
  p.from_pairing = r.mode == "live";
  auto [it, _] = tables_.emplace(r.code, std::move(p));
  for (int seat = 0; seat < 2; ++seat) {
    json::object m{{"t", "paired"}, {"code", r.code}, {"token", tokens[seat]}, {"seat", seat},
                   {"opponent", seekers[1 - seat]->name}, {"party", table_json(it->second)}};
    // A seeker connected to another instance is told there.
    if (bus_ && !seekers[seat]->instance.empty() && seekers[seat]->instance != bus_->id()) {
      BusMessage b{r.code};
      b.to = seekers[seat]->instance;
      b.connection = seekers[seat]->id;
      b.paired = json::serialize(m);
      bus_->publish(b);
      continue;
    }
    std::shared_ptr<Client> c;
    if (auto w = seekers_.find(seekers[seat]->id); w != seekers_.end()) c = w->second.lock();
    seekers_.erase(seekers[seat]->id);
    if (!c) continue;
    if (it->second.arrive_by) pairing_seekers_[r.code].push_back(c);
    c->send(message(m));
  }
  if (it->second.arrive_by) {
    const std::string code = r.code;
    if (defer_) defer_(limits_.pairing_arrival_ms, [this, code] { check_pairing(code); });
  }
}

void Hub::maybe_begin_pairing(Table& p) {
  if (!p.arrive_by || p.game() || p.expired() || p.connections_anywhere(0) == 0 || p.connections_anywhere(1) == 0)
    return;
  if (storing_.count(p.code())) return;  // its beginning (or end) is being written: that looks again
  // Written by the store's writer, off this thread; the game begins once it is.
  auto game = std::make_shared<PreparedGame>(p.prepare_game());
  auto stored_as = std::make_shared<int64_t>(0);
  const int64_t at = now();
  write_then(
      p.code(), [game, stored_as, at](Store& store) { *stored_as = game->store(store, at); },
      [this, game, stored_as, at](Table* p, std::exception_ptr error) {
        if (!p) return;
        // The store is away (the next arrival or the check tries again), or
        // another instance began it: read it again.
        if (error || !p->begin_prepared(std::move(*game), *stored_as, at)) return reload(*p);
        p->arrive_by = 0;
        pairing_seekers_.erase(p->code());
        after_change(*p, true, true, A_GAME_BEGAN);
      });
}

void Hub::check_pairing(const std::string& code) {
  auto it = tables_.find(code);
  if (it == tables_.end() || !it->second.arrive_by) {
    pairing_seekers_.erase(code);
    return;
  }
  Table& p = it->second;
  if (storing_.count(code)) {  // its beginning is being written: look again once it is
    if (defer_) defer_(100, [this, code] { check_pairing(code); });
    return;
  }
  maybe_begin_pairing(p);
  if (!p.arrive_by || storing_.count(code)) return;
  const int64_t left = p.arrive_by - now();
  if (left > 0) {
    if (defer_) defer_(left, [this, code] { check_pairing(code); });
    return;
  }
  end_pairing(p, "absent", p.connections_anywhere(0) == 0 ? 0 : 1);
}

void Hub::decline_pairing(const std::shared_ptr<Client>& c, const std::string& raw_code, const std::string& token) {
  const std::string code = normalise_code(raw_code);
  if (token.size() > 64) return send_error(*c, "", Error{ErrorCode::BadRequest, Msg::TokenTooLong});
  Table* p = token.empty() ? nullptr : find(code);
  const int seat = p ? seat_of_token(*p, token, c->ip) : -1;
  if (seat < 0) return send_error(*c, "", Error{ErrorCode::Forbidden, Msg::TokenNoSeat});
  // Its game is beginning (being written) counts as begun.
  if (!p->arrive_by || p->game() || p->expired() || storing_.count(p->code()))
    return send_error(*c, "", Error{ErrorCode::Conflict, Msg::PairingBegun});
  end_pairing(*p, "declined", seat, [this, c, code](std::exception_ptr error) {
    if (error) return send_error(*c, "", Error{ErrorCode::Conflict, {Msg::StorageFailed, {{"detail", "try again"}}}});
    c->send(message(json::object{{"t", "pairing-ended"}, {"code", code}, {"reason", "declined"}}));
  });
}

void Hub::end_pairing(Table& p, const std::string& reason, int missing, std::function<void(std::exception_ptr)> done) {
  if (p.game() || p.expired() || storing_.count(p.code())) return;
  const int64_t at = now();
  // Written by the store's writer, off this thread; told once it is.
  write_then(
      p.code(), [code = p.code(), at](Store& store) { store.expire_table(code, 0, 0, at); },
      [this, reason, missing, at, done = std::move(done)](Table* p, std::exception_ptr error) {
        if (error) {
          try {
            std::rethrow_exception(error);
          } catch (const VersionConflict&) {
            error = nullptr;  // another instance ended it first: the same end
            if (p) reload(*p);
          } catch (...) {
            if (done) done(error);  // the store is away: the next check tries again
            return;
          }
        }
        if (!p) return;
        if (!p->expired()) p->ended(at);
        p->arrive_by = 0;
        p->pairing_ended = reason;
        p->pairing_missing = missing;
        if (auto it = pairing_seekers_.find(p->code()); it != pairing_seekers_.end()) {
          auto m = message(json::object{{"t", "pairing-ended"}, {"code", p->code()}, {"reason", reason}});
          for (const auto& w : it->second)
            if (auto c = w.lock()) c->send(m);
          pairing_seekers_.erase(it);
        }
        after_change(*p, true, false);
        if (done) done(nullptr);
      });
}

void Hub::watch_first_move(Table& p) {
  if (!p.from_pairing || p.awaiting_first_move() < 0 || !defer_) return;
  const int64_t due = p.last_activity() + limits_.first_move_ms;
  if (p.first_move_check == due) return;  // already looked for then
  p.first_move_check = due;
  defer_(std::max<int64_t>(0, due - now()), [this, code = p.code()] { check_first_move(code); });
}

void Hub::check_first_move(const std::string& code) {
  auto it = tables_.find(code);
  if (it == tables_.end()) return;
  Table& p = it->second;
  p.first_move_check = 0;
  const int seat = p.awaiting_first_move();
  if (!p.from_pairing || seat < 0) return;
  const int64_t t = now();
  // Not yet, or an action of the table is being stored (a move, perhaps): look again then.
  if (t < p.last_activity() + limits_.first_move_ms) return watch_first_move(p);
  if (storing_.count(code)) {
    if (defer_) defer_(100, [this, code] { check_first_move(code); });
    return;
  }
  PreparedAction a;
  if (p.prepare(seat, "abort", "", p.game()->version, a)) return;
  auto called_off = std::make_shared<PreparedAction>(std::move(a));
  // The game's end and the table's, in one piece of the writer's work.
  write_then(
      code,
      [called_off, t, code](Store& store) {
        store.append_action(called_off->game, called_off->version, called_off->action, t, false);
        store.expire_table(code, 0, 0, t);
      },
      [this, called_off, t](Table* p, std::exception_ptr error) {
        if (!p) return;
        if (error || !p->apply_prepared(std::move(*called_off), t)) {
          reload(*p);  // another instance moved the game on, or the store is away (looked at again)
          return watch_first_move(*p);
        }
        p->ended(t);
        after_change(*p, true, true, -1);  // the other instances read the table again
      });
}

json::object Hub::lobby_counts() const {
  // Players at a running game with an open connection, among the tables someone watches.
  int64_t playing = 0;
  for (const auto& [code, _] : watchers_) {
    auto it = tables_.find(code);
    if (it == tables_.end() || !it->second.game() || it->second.game()->game.over()) continue;
    for (const Seat& s : it->second.seats()) playing += s.connections > 0;
  }
  size_t waiting = matchmaker_.waiting();
  if (bus_)
    if (auto n = bus_->seek_count()) waiting = *n;
  return json::object{{"waiting", waiting}, {"playing", playing}};
}

void Hub::lobby_changed() {
  if (lobby_pending_) return;  // one update is on its way
  lobby_pending_ = true;
  auto flush = [this] {
    lobby_pending_ = false;
    json::object o = lobby_counts();
    o["t"] = "lobby";
    auto m = message(o);
    for (auto it = seekers_.begin(); it != seekers_.end();) {
      if (auto c = it->second.lock()) {
        c->send(m);
        ++it;
      } else {
        it = seekers_.erase(it);
      }
    }
  };
  if (defer_) defer_(limits_.presence_delay_ms, std::move(flush));
  else post_(std::move(flush));
}

HttpReply Hub::lobby() { return reply(200, lobby_counts()); }

}  // namespace makruk::server
