// The hub with other instances: what it tells them over the bus, what it does
// with what they tell it, and reading a table again from the shared store.
#include "server/tables/hub.h"

#include <chrono>
#include <boost/json.hpp>
#include <optional>
#include <utility>

#include "server/tables/hub_detail.h"

namespace makruk::server {

namespace json = boost::json;
using namespace detail;

void Hub::reload(Table& p) { reload(p.code(), {}); }

void Hub::reload(const std::string& code, std::function<void(Table*)> then) {
  auto read = std::make_shared<std::optional<TableData>>();
  auto work = [read, code](Store& store) { *read = store.load_table(code); };
  auto done = [this, read, then = std::move(then)](Table* p, std::exception_ptr error) {
    // The store away: the copy in memory stays until the next try.
    if (p && !error && *read) refreshed(*p, std::move(**read));
    if (then) then(p);
  };
  // Read on the table's lane, after its writes; its messages wait for it
  // unless a write of it is on its way (the read then follows that).
  if (!storing_.count(code)) return write_then(code, std::move(work), std::move(done));
  writer_->submit(code, std::move(work), [this, code, done = std::move(done)](std::exception_ptr error) {
    auto it = tables_.find(code);
    done(it == tables_.end() ? nullptr : &it->second, error);
  });
}

void Hub::refreshed(Table& p, TableData data) {
  Table fresh = Table::from_record(data);
  // A read from before a change that came by the bus since: nothing new.
  const LiveGame* had = p.game() ? &*p.game() : nullptr;
  const LiveGame* read = fresh.game() ? &*fresh.game() : nullptr;
  if ((had && (!read || read->id < had->id || (read->id == had->id && read->version < had->version))) ||
      (p.expired() && !fresh.expired()))
    return;
  fresh.carry_presence_from(p);
  p = std::move(fresh);
  broadcast(p, true, true);
  cpus_.maybe_play(p);
}

bool Hub::seat_may_be_elsewhere(const std::string& code, const std::string& token, const std::string& ip) {
  auto it = tables_.find(code);
  return bus_ && !token.empty() && it != tables_.end() && it->second.seats().size() < 2 &&
         it->second.seat_of_token(hash_token(token)) < 0 && code_guess_allowed(ip, false);
}

void Hub::set_bus(Bus* bus) {
  if (bus_) bus_->stop();
  bus_ = bus;
  // The per-address limits count across the instances.
  for (const auto& [limiter, name] : limiters()) limiter->share(bus, name);
  lobby_.set_bus(bus);
  notices_.set_bus(bus);
  cpus_.set_bus(bus);
  if (bus_) bus_->alive();
  if (bus_)
    bus_->start([this](BusMessage m) {
      {
        std::lock_guard lock(bus_inbox_mutex_);
        bus_inbox_.push_back(std::move(m));
        if (std::exchange(bus_draining_, true)) return;  // a drain is on its way
      }
      post_([this] { drain_bus(); });
    });
}

void Hub::drain_bus() {
  for (size_t i = 0; i < BUS_SLICE; ++i) {
    std::optional<BusMessage> m;
    {
      std::lock_guard lock(bus_inbox_mutex_);
      if (bus_inbox_.empty()) {
        bus_draining_ = false;
        return;
      }
      m = std::move(bus_inbox_.front());
      bus_inbox_.pop_front();
    }
    on_bus(*m);
  }
  // More waiting (the others catching up after a stall, say): the rest after
  // what the hub was given meanwhile, so that it is not held up behind them.
  post_([this] { drain_bus(); });
}

void Hub::publish(const Table& p, int from) {
  if (!bus_) return;
  BusMessage m(p.code(), p.game() ? p.game()->id : 0, p.game() ? p.game()->version : 0);
  if (const LiveGame* g = p.game() ? &*p.game() : nullptr;
      g && from >= 0 && from < g->version && size_t(g->version - from) <= MAX_BUS_ACTIONS &&
      size_t(g->version) == g->game.record().size()) {
    m.actions.assign(g->game.record().begin() + from, g->game.record().end());
    m.at = p.last_activity();
  }
  if (const LiveGame* g = p.game() ? &*p.game() : nullptr; g && from == A_GAME_BEGAN && g->version == 0) {
    m.started = g->number;
    m.white = g->white_seat;
    m.public_id = g->public_id;
    m.at = p.last_activity();
  }
  bus_->publish(m);
}

void Hub::publish_presence(const Table& p) {
  if (!bus_) return;
  BusMessage m{p.code()};
  m.presence = true;
  for (int seat = 0; seat < 2 && size_t(seat) < p.seats().size(); ++seat) m.seats[seat] = p.seats()[size_t(seat)].connections;
  m.spectators = p.spectators;
  for (auto it = p.spectator_names.begin(); it != p.spectator_names.end() && m.names.size() < 50;
       it = p.spectator_names.upper_bound(*it))
    m.names.push_back(*it);
  bus_->publish(m);
}

void Hub::heartbeat() {
  if (!bus_) return;
  const auto started = std::chrono::steady_clock::now();
  bus_->alive();
  bus_heartbeat_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const int64_t t = now();
  for (auto& [code, p] : tables_) {
    // Who is here, said again now and then, so that an instance that comes
    // to the table later learns it, and what a dead instance said fades.
    if (!p.nobody_connected() && t - p.presence_said_at >= PRESENCE_HEARTBEAT_MS) {
      publish_presence(p);
      p.presence_said_at = t;
    }
    const size_t before = p.elsewhere.size();
    std::erase_if(p.elsewhere, [t](const auto& e) { return t - e.second.at > 2 * PRESENCE_HEARTBEAT_MS + 10000; });
    if (p.elsewhere.size() != before) broadcast(p, true, false);
  }
}

void Hub::on_bus(const BusMessage& m) {
  if (!m.paired.empty()) return lobby_.paired_elsewhere(m.connection, m.paired);  // a seeker here, paired there
  if (m.presence) {
    auto it = tables_.find(m.code);
    if (it == tables_.end()) return;  // nobody here to tell
    Table& p = it->second;
    const bool newcomer = !p.elsewhere.count(m.instance);
    bool changed = true;
    if (m.seats[0] == 0 && m.seats[1] == 0 && m.spectators == 0) {
      changed = p.elsewhere.erase(m.instance) > 0;
    } else {
      Table::Elsewhere& e = p.elsewhere[m.instance];
      changed = newcomer || e.seats[0] != m.seats[0] || e.seats[1] != m.seats[1] || e.spectators != m.spectators ||
                e.names != m.names;
      e.seats[0] = m.seats[0];
      e.seats[1] = m.seats[1];
      e.spectators = m.spectators;
      e.names = m.names;
      e.at = now();
    }
    // The same again (the heartbeat that keeps it from fading): nobody to tell.
    if (changed) broadcast(p, true, false);
    maybe_begin_pairing(p);  // the other player came to the table there
    // An instance new at this table learns who is here in turn.
    if (newcomer && !p.nobody_connected()) publish_presence(p);
    return;
  }
  if (m.code.empty()) {  // the bus was away: anything may have changed
    for (auto& [code, p] : tables_) reload(code, {});
    return;
  }
  // A table out of memory is read fresh when it is opened. One in memory
  // takes the actions or the new game that came along when it is just before
  // them (the usual move or start), and is read again otherwise (a seat, a
  // rematch offer, a message missed: the store has it all).
  auto it = tables_.find(m.code);
  if (it == tables_.end()) return;
  Table& p = it->second;
  if (!m.actions.empty() && p.game() && p.game()->id == m.game && p.game()->version >= m.version)
    return;  // it has them already
  if (!m.actions.empty() && p.apply_stored(m.game, m.version, m.actions, m.at)) {
    broadcast(p, p.game()->game.over(), true);
    watch_first_move(p);
    return cpus_.maybe_play(p);
  }
  if (m.started && p.game() && p.game()->id >= m.game) return;  // begun here already
  if (m.started && p.begin_stored(m.game, m.started, m.white, m.at, m.public_id)) {
    broadcast(p, true, true);
    watch_first_move(p);
    return cpus_.maybe_play(p);
  }
  reload(p);
}

}  // namespace makruk::server
