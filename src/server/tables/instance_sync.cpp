// Instance sync: the bus between the instances sharing a store, as the
// tables see it.
#include "server/tables/instance_sync.h"

#include <chrono>
#include <optional>
#include <utility>

namespace makruk::server {

void InstanceSync::set_bus(Bus* bus) {
  stop();
  bus_ = bus;
  if (!bus_) return;
  bus_->alive();
  bus_->start([this](BusMessage m) {
    {
      std::lock_guard lock(inbox_mutex_);
      inbox_.push_back(std::move(m));
      if (std::exchange(draining_, true)) return;  // a drain is on its way
    }
    post_([this] { drain(); });
  });
}

void InstanceSync::stop() {
  if (bus_) bus_->stop();  // its thread posts to the hub's executor
}

void InstanceSync::drain() {
  for (size_t i = 0; i < BUS_SLICE; ++i) {
    std::optional<BusMessage> m;
    {
      std::lock_guard lock(inbox_mutex_);
      if (inbox_.empty()) {
        draining_ = false;
        return;
      }
      m = std::move(inbox_.front());
      inbox_.pop_front();
    }
    on_message(*m);
  }
  // More waiting (the others catching up after a stall, say): the rest after
  // what the hub was given meanwhile, so that it is not held up behind them.
  post_([this] { drain(); });
}

void InstanceSync::publish(const Table& p, int from) {
  if (!bus_) return;
  const LiveGame* g = p.game() ? &*p.game() : nullptr;
  BusMessage m(p.code(), g ? g->id : 0, g ? g->version : 0);
  if (g && from >= 0 && from < g->version && size_t(g->version - from) <= MAX_BUS_ACTIONS &&
      size_t(g->version) == g->game.record().size()) {
    m.actions.assign(g->game.record().begin() + from, g->game.record().end());
    m.at = p.last_activity();
  }
  if (g && from == A_GAME_BEGAN && g->version == 0) {
    m.started = g->number;
    m.white = g->white_seat;
    m.public_id = g->public_id;
    m.at = p.last_activity();
  }
  bus_->publish(m);
}

void InstanceSync::publish_presence(const Table& p) {
  if (!bus_) return;
  BusMessage m{p.code()};
  m.presence = true;
  for (int seat = 0; seat < 2 && size_t(seat) < p.seats().size(); ++seat)
    m.seats[seat] = p.seats()[size_t(seat)].connections;
  m.spectators = p.spectators;
  for (auto it = p.spectator_names.begin(); it != p.spectator_names.end() && m.names.size() < 50;
       it = p.spectator_names.upper_bound(*it))
    m.names.push_back(*it);
  bus_->publish(m);
}

void InstanceSync::heartbeat() {
  if (!bus_) return;
  const auto started = std::chrono::steady_clock::now();
  bus_->alive();
  heartbeat_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const int64_t t = now_();
  tables_.each([&](const std::string&, Table& p) {
    // Who is here, said again now and then, so that an instance that comes
    // to the table later learns it, and what a dead instance said fades.
    if (!p.nobody_connected() && t - p.presence_said_at >= PRESENCE_HEARTBEAT_MS) {
      publish_presence(p);
      p.presence_said_at = t;
    }
    const size_t before = p.elsewhere.size();
    std::erase_if(p.elsewhere, [t](const auto& e) { return t - e.second.at > 2 * PRESENCE_HEARTBEAT_MS + 10000; });
    if (p.elsewhere.size() != before) tables_.broadcast(p, true, false);
  });
}

void InstanceSync::on_presence(const BusMessage& m) {
  Table* p = tables_.in_memory(m.code);
  if (!p) return;  // nobody here to tell
  const bool newcomer = !p->elsewhere.count(m.instance);
  bool changed = true;
  if (m.seats[0] == 0 && m.seats[1] == 0 && m.spectators == 0) {
    changed = p->elsewhere.erase(m.instance) > 0;
  } else {
    Table::Elsewhere& e = p->elsewhere[m.instance];
    changed = newcomer || e.seats[0] != m.seats[0] || e.seats[1] != m.seats[1] || e.spectators != m.spectators ||
              e.names != m.names;
    e.seats[0] = m.seats[0];
    e.seats[1] = m.seats[1];
    e.spectators = m.spectators;
    e.names = m.names;
    e.at = now_();
  }
  // The same again (the heartbeat that keeps it from fading): nobody to tell.
  if (changed) tables_.broadcast(*p, true, false);
  tables_.came(*p);  // the other player came to the table there
  // An instance new at this table learns who is here in turn.
  if (newcomer && !p->nobody_connected()) publish_presence(*p);
}

void InstanceSync::on_message(const BusMessage& m) {
  if (!m.paired.empty()) return tables_.paired_elsewhere(m.connection, m.paired);  // a seeker here, paired there
  if (m.presence) return on_presence(m);
  if (m.code.empty()) {  // the bus was away: anything may have changed
    tables_.each([this](const std::string& code, Table&) { tables_.read_again(code); });
    return;
  }
  // A table out of memory is read fresh when it is opened. One in memory
  // takes the actions or the new game that came along when it is just before
  // them (the usual move or start), and is read again otherwise (a seat, a
  // rematch offer, a message missed: the store has it all).
  Table* p = tables_.in_memory(m.code);
  if (!p) return;
  if (!m.actions.empty() && p->game() && p->game()->id == m.game && p->game()->version >= m.version)
    return;  // it has them already
  if (!m.actions.empty() && p->apply_stored(m.game, m.version, m.actions, m.at)) {
    tables_.broadcast(*p, p->game()->game.over(), true);
    return tables_.went_on(*p);
  }
  if (m.started && p->game() && p->game()->id >= m.game) return;  // begun here already
  if (m.started && p->begin_stored(m.game, m.started, m.white, m.at, m.public_id)) {
    tables_.broadcast(*p, true, true);
    return tables_.went_on(*p);
  }
  tables_.read_again(m.code);
}

}  // namespace makruk::server
