// The hub with other instances: reading a table again from the shared store
// (what the bus says is instance_sync.h's), and the parts told of the bus.
#include "server/tables/hub.h"

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
  watch_clock(p);
}

bool Hub::seat_may_be_elsewhere(const std::string& code, const std::string& token, const std::string& ip) {
  auto it = tables_.find(code);
  return bus_ && !token.empty() && it != tables_.end() && it->second.seats().size() < 2 &&
         it->second.seat_of_token(hash_token(token)) < 0 && code_guess_allowed(ip, false);
}

void Hub::set_bus(Bus* bus) {
  bus_ = bus;
  // The per-address limits count across the instances.
  for (const auto& [limiter, name] : limiters()) limiter->share(bus, name);
  guard_.share(bus);
  cpus_.set_bus(bus);
  sync_.set_bus(bus);
  // The tables held now, told to the new bus.
  for (const auto& [code, p] : tables_) hold_on_bus(code);
  for (const std::string& code : creating_) hold_on_bus(code);
  for (const auto& [code, waiting] : opening_) hold_on_bus(code);
}

void Hub::heartbeat() { sync_.heartbeat(); }

}  // namespace makruk::server
