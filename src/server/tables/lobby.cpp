#include "server/tables/lobby.h"

#include <boost/json.hpp>

#include "server/tables/hub_detail.h"

namespace makruk::server {

namespace json = boost::json;
using namespace detail;

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

std::shared_ptr<const std::string> seeking(const SeekWish& wish) {
  return message(
      json::object{{"t", "seeking"}, {"variant", wish.variant}, {"counting", wish.counting}, {"mode", wish.mode}});
}

}  // namespace

Lobby::Lobby(Tables tables, std::function<int64_t()> now, Post post)
    : tables_(std::move(tables)), now_(std::move(now)), post_(std::move(post)) {
  matchmaker_.pair_same_address = limits_.pair_same_address;
}

void Lobby::set_limits(const Limits& limits) {
  limits_ = limits;
  matchmaker_.pair_same_address = limits.pair_same_address;
}

void Lobby::set_bus(Bus* bus) {
  bus_ = bus;
  seeks_.share(bus, "seek");
}

void Lobby::on_message(const std::shared_ptr<Client>& c, const std::string& text) {
  if (!c->id) c->id = ++next_id_;
  if (!c->lobby_pace.allows(now_())) {
    c->send(error_message("", Error{ErrorCode::RateLimited, Msg::LimitMessages}));
    if (c->lobby_pace.abusive()) c->close();
    return;
  }
  Message why;
  auto o = parse_object(text, why);
  if (!o) return c->send(error_message("", Error{ErrorCode::BadRequest, why}));
  std::string type, id, code, token, name, browser;
  SeekWish wish;
  if (!get_string(*o, "t", type) || !get_string(*o, "id", id) || !get_string(*o, "code", code) ||
      !get_string(*o, "token", token) || !get_string(*o, "name", name) || !get_string(*o, "browser", browser) ||
      !get_string(*o, "variant", wish.variant) || !get_string(*o, "counting", wish.counting) ||
      !get_string(*o, "mode", wish.mode))
    return c->send(error_message(id.size() > 64 ? "" : id, Error{ErrorCode::BadRequest, Msg::FieldType}));
  if (id.size() > 64) return c->send(error_message("", Error{ErrorCode::BadRequest, Msg::IdTooLong}));
  if (type == "ping") return c->send(message(json::object{{"t", "pong"}}));
  if (type == "seek") {
    std::optional<Front> front;
    if (!code.empty() && !token.empty() && token.size() <= 64) front = Front{code, token};
    return seek(c, wish, name, browser, std::move(front));
  }
  if (type == "unseek") return unseek(c, true);
  if (type == "decline-pairing") return tables_.decline(c, code, token);
  // Anything else is a table's: its connection opens at it.
  c->send(error_message(id, Error{ErrorCode::BadRequest, Msg::HelloFirst}));
}

void Lobby::on_close(const std::shared_ptr<Client>& c) { unseek(c, false); }

void Lobby::seek(const std::shared_ptr<Client>& c, const SeekWish& wish, const std::string& raw_name,
                 const std::string& browser, std::optional<Front> front) {
  auto refuse = [&](Error e) { c->send(error_message("", e)); };
  auto bad = [&](Message why) { refuse(Error{ErrorCode::BadRequest, std::move(why)}); };
  if (!wish.variant.empty() && wish.variant != "makruk" && wish.variant != "ouk") return bad(Msg::SeekVariant);
  if (!wish.counting.empty() && wish.counting != "auto" && wish.counting != "declare") return bad(Msg::SeekCounting);
  if (!wish.mode.empty() && wish.mode != "live" && wish.mode != "turn") return bad(Msg::SeekMode);
  if (browser.size() > 64) return bad(Msg::BrowserTooLong);
  Message why;
  auto name = clean_name(raw_name, why);
  if (!name) return bad(why);
  const int64_t t = now_();
  if (t - swept_at_ >= MINUTE_MS) {  // the limits forget the windows that have emptied
    seeks_.sweep(t);
    swept_at_ = t;
  }
  const bool waiting = seekers_.count(c->id) != 0;
  // Without a bus, the limit on seekers per address first; with one, it is
  // checked on the shared queue as read on the bus's thread (seek_shared).
  if (!bus_ && !waiting && limits_.seeks_per_address && matchmaker_.waiting_from(c->ip) >= limits_.seeks_per_address)
    return refuse(Error{ErrorCode::RateLimited, Msg::LimitSeekers});
  if (!seeks_.allow(c->ip, t, limits_.seek_per_minute)) return refuse(Error{ErrorCode::RateLimited, Msg::LimitSeeks});
  // A pairing makes a table, and counts against the address's new tables:
  // past that limit, an address waits its minute here too, so that pairing
  // oneself makes no more tables than creating them.
  if (!waiting && !tables_.may_create(c->ip)) return refuse(Error{ErrorCode::RateLimited, Msg::LimitTables});
  c->greeted = true;  // a seeker has said who it is: the hello deadline does not apply
  Seek mine{c->id, browser, c->ip, *name, wish, t, bus_ ? bus_->id() : ""};
  asking_front_.erase(c->id);  // a seek asking for the front meanwhile is replaced by this one
  if (!front) return seek_checked(c, std::move(mine), waiting);
  // Asked of the table's hub; the seek goes on here once it answers, unless
  // cancelled or replaced meanwhile.
  const uint64_t asked = ++fronts_asked_;
  asking_front_[c->id] = asked;
  std::weak_ptr<Client> weak = c;
  tables_.at_front(c, front->code, front->token, [this, weak, mine, waiting, asked](bool first) {
    post_([this, weak, mine, waiting, asked, first]() mutable {
      auto it = asking_front_.find(mine.id);
      if (it == asking_front_.end() || it->second != asked) return;
      asking_front_.erase(it);
      auto c = weak.lock();
      if (!c) return;
      if (first) mine.since = 0;  // the front of the queue is the earliest time there is
      seek_checked(c, std::move(mine), waiting);
    });
  });
}

void Lobby::seek_checked(const std::shared_ptr<Client>& c, Seek mine, bool waiting) {
  if (bus_) return seek_shared(c, std::move(mine), waiting);
  seek_here(c, std::move(mine));
}

void Lobby::pair(Pairing pairing) {
  std::array<std::shared_ptr<Client>, 2> here;
  Seek* seats[2] = {&pairing.first, &pairing.second};
  for (size_t seat = 0; seat < 2; ++seat) {
    Seek& s = *seats[seat];
    if (bus_ && s.instance == bus_->id()) s.instance.clear();
    if (s.instance.empty()) here[seat] = take(s.id);  // leaves the lobby for its table
  }
  tables_.pair(pairing, std::move(here));
}

void Lobby::seek_here(const std::shared_ptr<Client>& c, Seek mine) {
  const SeekWish wish = mine.wish;
  mine.instance.clear();
  uint64_t replaced_id = 0;
  auto pairing = matchmaker_.seek(std::move(mine), &replaced_id);
  if (replaced_id) replaced(replaced_id);
  seekers_[c->id] = c;
  if (pairing) pair(std::move(*pairing));
  else c->send(seeking(wish));
  changed();
}

void Lobby::replaced(uint64_t id) {
  if (auto old = seeker(id)) old->send(message(json::object{{"t", "seek-ended"}, {"reason", "replaced"}}));
  seekers_.erase(id);
}

// What a seek in the shared queue came to, on the bus's thread.
struct Lobby::SharedSeek {
  enum Outcome { Unanswered, TooMany, Paired, Queued } outcome = Unanswered;
  std::optional<Seek> other;  // Paired: with whom
  SeekWish agreed;
  std::vector<uint64_t> replaced;  // this instance's seekers of the same browser, taken out
};

void Lobby::seek_shared(const std::shared_ptr<Client>& c, Seek mine, bool waiting) {
  // The entry is known now, so that a cancel sent meanwhile takes it out
  // after it (the bus's questions run in order).
  const std::string entry = seek_entry(mine);
  std::string old;
  if (auto it = shared_seeks_.find(c->id); it != shared_seeks_.end()) old = it->second;
  shared_seeks_[c->id] = entry;
  seekers_[c->id] = c;
  const size_t per_address = waiting ? 0 : limits_.seeks_per_address;
  const bool same_address = limits_.pair_same_address;
  Bus* bus = bus_;
  std::weak_ptr<Client> weak = c;
  bus->ask([this, bus, weak, mine = std::move(mine), entry, old, per_address, same_address]() mutable {
    SharedSeek r;
    if (!old.empty()) bus->take_seek(old);
    auto queue = bus->seeks();
    if (queue) r = find_shared(*bus, mine, *queue, per_address, same_address);
    if (r.outcome == SharedSeek::Unanswered && queue && bus->add_seek(entry, mine.since))
      r.outcome = SharedSeek::Queued;
    post_([this, weak, mine = std::move(mine), entry, r = std::move(r)]() mutable {
      shared_seek_done(weak, std::move(mine), entry, std::move(r));
    });
  });
}

Lobby::SharedSeek Lobby::find_shared(Bus& bus, const Seek& mine, const std::vector<std::string>& queue,
                                     size_t per_address, bool same_address) {
  SharedSeek r;
  if (per_address) {
    size_t n = 0;
    for (const std::string& text : queue)
      if (auto s = parse_seek(text); s && s->ip == mine.ip) ++n;
    if (n >= per_address) {
      r.outcome = SharedSeek::TooMany;
      return r;
    }
  }
  for (const std::string& text : queue) {
    auto other = parse_seek(text);
    if (!other || !bus.is_alive(other->instance)) {  // malformed, or its instance is gone
      bus.take_seek(text);
      continue;
    }
    if (other->instance == mine.instance && other->id == mine.id) continue;  // an earlier seek of its own
    if (!other->browser.empty() && other->browser == mine.browser) {  // one entry per browser: this one replaces it
      if (bus.take_seek(text) && other->instance == mine.instance) r.replaced.push_back(other->id);
      continue;
    }
    if (!same_address && other->ip == mine.ip) continue;  // nor one's own address
    auto agreed = Matchmaker::agree(other->wish, mine.wish);
    if (!agreed || !bus.take_seek(text)) continue;  // not compatible, or another instance took it first
    r.outcome = SharedSeek::Paired;
    r.other = std::move(other);
    r.agreed = *agreed;
    return r;
  }
  return r;
}

void Lobby::shared_seek_done(const std::weak_ptr<Client>& weak, Seek mine, const std::string& entry, SharedSeek r) {
  for (uint64_t id : r.replaced) {
    if (id == mine.id) continue;
    replaced(id);
    shared_seeks_.erase(id);
  }
  auto it = shared_seeks_.find(mine.id);
  // Still its latest seek, not cancelled meanwhile (a cancel's own question
  // takes the entry out of the queue after this one).
  const bool current = it != shared_seeks_.end() && it->second == entry;
  auto c = weak.lock();
  if (current && r.outcome != SharedSeek::Queued) shared_seeks_.erase(it);
  switch (r.outcome) {
    case SharedSeek::Paired:
      // Made on the bus in order: it stands even if the seeker cancelled or
      // left meanwhile (it then does not come to the table in time).
      if (r.other->instance == mine.instance) shared_seeks_.erase(r.other->id);
      if (c) seekers_[mine.id] = c;
      pair(Pairing{*r.other, mine, r.agreed});
      break;
    case SharedSeek::TooMany:
      if (!current) break;
      seekers_.erase(mine.id);
      if (c) c->send(error_message("", Error{ErrorCode::RateLimited, Msg::LimitSeekers}));
      break;
    case SharedSeek::Queued:
      if (!current || !c) break;
      seekers_[mine.id] = c;
      c->send(seeking(mine.wish));
      break;
    case SharedSeek::Unanswered:  // the bus does not answer: this instance pairs alone meanwhile
      if (!current || !c) break;
      seekers_.erase(mine.id);
      seek_here(c, std::move(mine));
      return;
  }
  changed();
}

void Lobby::unseek(const std::shared_ptr<Client>& c, bool tell) {
  // Cancelling is answered even when nothing waited (a pairing may have come first).
  if (tell) c->send(message(json::object{{"t", "seek-ended"}, {"reason", "cancelled"}}));
  if (!c->id) return;
  asking_front_.erase(c->id);
  if (auto shared = shared_seeks_.find(c->id); shared != shared_seeks_.end()) {
    if (bus_) bus_->ask([bus = bus_, entry = shared->second] { bus->take_seek(entry); });
    shared_seeks_.erase(shared);
    seekers_.erase(c->id);
    changed();
    return;
  }
  if (!matchmaker_.cancel(c->id)) return;
  seekers_.erase(c->id);
  changed();
}

void Lobby::paired_elsewhere(uint64_t connection, std::string text) {
  post_([this, connection, text = std::move(text)] {
    shared_seeks_.erase(connection);
    if (auto c = take(connection)) c->send(std::make_shared<const std::string>(text));
    changed();
  });
}

std::shared_ptr<Client> Lobby::seeker(uint64_t id) const {
  auto it = seekers_.find(id);
  return it == seekers_.end() ? nullptr : it->second.lock();
}

std::shared_ptr<Client> Lobby::take(uint64_t id) {
  auto c = seeker(id);
  seekers_.erase(id);
  return c;
}

size_t Lobby::waiting() const { return bus_ && shared_waiting_ ? *shared_waiting_ : matchmaker_.waiting(); }

void Lobby::counts(std::function<void(json::object)> then) {
  // The tables count their players (at every hub), then the counts go out here.
  auto with_players = [this, then = std::move(then)] {
    tables_.playing([this, then](int64_t playing) {
      post_([this, then, playing] { then(json::object{{"waiting", waiting()}, {"playing", playing}}); });
    });
  };
  if (!bus_) return with_players();
  bus_->ask([this, bus = bus_, with_players = std::move(with_players)] {
    auto n = bus->seek_count();
    post_([this, n, with_players] {
      if (n) shared_waiting_ = n;
      with_players();
    });
  });
}

void Lobby::changed() {
  if (update_pending_) return;  // one update is on its way
  update_pending_ = true;
  auto flush = [this] {
    // With a bus, the shared queue's length is asked first (on its thread).
    counts([this](json::object o) { send_counts(std::move(o)); });
  };
  if (defer_) defer_(limits_.update_delay_ms, std::move(flush));
  else post_(std::move(flush));
}

void Lobby::send_counts(json::object o) {
  update_pending_ = false;
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
}

}  // namespace makruk::server
