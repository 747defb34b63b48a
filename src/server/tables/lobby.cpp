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

void Lobby::seek(const std::shared_ptr<Client>& c, const SeekWish& wish, const std::string& raw_name,
                 const std::string& browser, const std::function<bool()>& at_front) {
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
    return refuse(Error{ErrorCode::RateLimited, Msg::LimitSeekers});
  if (!seeks_.allow(c->ip, t, limits_.seek_per_minute)) return refuse(Error{ErrorCode::RateLimited, Msg::LimitSeeks});
  // A pairing makes a table, and counts against the address's new tables:
  // past that limit, an address waits its minute here too, so that pairing
  // oneself makes no more tables than creating them.
  if (!waiting && !tables_.may_create(c->ip)) return refuse(Error{ErrorCode::RateLimited, Msg::LimitTables});
  c->greeted = true;  // a seeker has said who it is: the hello deadline does not apply
  // The front of the queue is the earliest time there is.
  const int64_t since = at_front && at_front() ? 0 : t;
  if (shared() && seek_shared(c, wish, *name, browser, since, *queue)) return;
  uint64_t replaced_id = 0;
  auto pairing = matchmaker_.seek(Seek{c->id, browser, c->ip, *name, wish, since, ""}, &replaced_id);
  if (replaced_id) replaced(replaced_id);
  seekers_[c->id] = c;
  if (pairing) tables_.pair(*pairing);  // both leave seekers_ there
  else c->send(seeking(wish));
  changed();
}

void Lobby::replaced(uint64_t id) {
  if (auto old = seeker(id)) old->send(message(json::object{{"t", "seek-ended"}, {"reason", "replaced"}}));
  seekers_.erase(id);
}

size_t Lobby::waiting_from(const std::string& ip, const std::optional<std::vector<std::string>>& queue) const {
  if (!bus_) return matchmaker_.waiting_from(ip);
  size_t n = 0;
  if (queue)
    for (const std::string& text : *queue)
      if (auto s = parse_seek(text); s && s->ip == ip) ++n;
  return n;
}

bool Lobby::seek_shared(const std::shared_ptr<Client>& c, const SeekWish& wish, const std::string& name,
                        const std::string& browser, int64_t since, const std::vector<std::string>& queue) {
  if (auto old = shared_seeks_.find(c->id); old != shared_seeks_.end()) {
    bus_->take_seek(old->second);
    shared_seeks_.erase(old);
  }
  Seek mine{c->id, browser, c->ip, name, wish, since, bus_->id()};
  for (const std::string& text : queue) {
    auto other = parse_seek(text);
    if (!other || !bus_->is_alive(other->instance)) {  // malformed, or its instance is gone
      bus_->take_seek(text);
      continue;
    }
    if (other->instance == mine.instance && other->id == mine.id) continue;  // taken out above
    if (!other->browser.empty() && other->browser == browser) {  // one entry per browser: this one replaces it
      if (bus_->take_seek(text) && other->instance == mine.instance) {
        replaced(other->id);
        shared_seeks_.erase(other->id);
      }
      continue;
    }
    if (!limits_.pair_same_address && other->ip == c->ip) continue;  // nor one's own address
    auto agreed = Matchmaker::agree(other->wish, wish);
    if (!agreed || !bus_->take_seek(text)) continue;  // not compatible, or another instance took it first
    if (other->instance == mine.instance) shared_seeks_.erase(other->id);
    seekers_[c->id] = c;
    tables_.pair(Pairing{*other, mine, *agreed});
    changed();
    return true;
  }
  const std::string entry = seek_entry(mine);
  if (!bus_->add_seek(entry, mine.since)) return false;
  shared_seeks_[c->id] = entry;
  seekers_[c->id] = c;
  c->send(seeking(wish));
  changed();
  return true;
}

void Lobby::unseek(const std::shared_ptr<Client>& c, bool tell) {
  // Cancelling is answered even when nothing waited (a pairing may have come first).
  if (tell) c->send(message(json::object{{"t", "seek-ended"}, {"reason", "cancelled"}}));
  if (auto shared = shared_seeks_.find(c->id); c->id && shared != shared_seeks_.end()) {
    if (bus_) bus_->take_seek(shared->second);
    shared_seeks_.erase(shared);
    seekers_.erase(c->id);
    changed();
    return;
  }
  if (!c->id || !matchmaker_.cancel(c->id)) return;
  seekers_.erase(c->id);
  changed();
}

void Lobby::paired_elsewhere(uint64_t connection, const std::string& text) {
  shared_seeks_.erase(connection);
  if (auto c = take(connection)) c->send(std::make_shared<const std::string>(text));
  changed();
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

json::object Lobby::counts() const {
  size_t waiting = matchmaker_.waiting();
  if (bus_)
    if (auto n = bus_->seek_count()) waiting = *n;
  return json::object{{"waiting", waiting}, {"playing", tables_.playing()}};
}

void Lobby::changed() {
  if (update_pending_) return;  // one update is on its way
  update_pending_ = true;
  auto flush = [this] {
    update_pending_ = false;
    json::object o = counts();
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
  if (defer_) defer_(limits_.update_delay_ms, std::move(flush));
  else post_(std::move(flush));
}

}  // namespace makruk::server
