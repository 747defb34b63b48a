// The clock house rule at the hub: a game whose side to move runs out of
// time ends on time ("time"), when its time comes (a deferred look, and the
// hub's tick for what a deferred look missed: a table read again, another
// instance's move).
#include "server/tables/hub.h"

namespace makruk::server {

void Hub::watch_clock(Table& p) {
  const int64_t due = p.flag_at();
  if (!due || !defer_ || p.clock_check == due) return;  // no clock running, or looked for then already
  p.clock_check = due;
  defer_(std::max<int64_t>(0, due - now()), [this, code = p.code()] { check_clock(code); });
}

void Hub::check_clock(const std::string& code) {
  auto it = tables_.find(code);
  if (it == tables_.end()) return;
  Table& p = it->second;
  p.clock_check = 0;
  const int64_t t = now();
  if (!p.out_of_time(t)) return watch_clock(p);  // a move came meanwhile: its clock now
  if (storing_.count(code)) return after_write(code, [this, code] { check_clock(code); });
  const int seat = p.game()->seat_of(p.game()->game.position().side_to_move());
  PreparedAction a;
  if (p.prepare(seat, "time", "", p.game()->version, a)) return;
  const int before = a.version;
  std::vector<PreparedAction> actions;
  actions.push_back(std::move(a));
  store_actions(code, std::move(actions), [this, before](Table* p, std::exception_ptr error, bool applied) {
    if (!p) return;
    // The store away: looked at again at the next tick. Refused: another
    // instance moved the game on, and the table was read again.
    if (error || !applied) return watch_clock(*p);
    after_change(*p, true, true, before);
  });
}

}  // namespace makruk::server
