// The tables of paired seekers (the lobby, lobby.h, pairs them): made, begun
// once both players have come, ended when one declines or does not come,
// and called off when one makes no first move.
#include "server/tables/hub.h"

#include <array>
#include <boost/json.hpp>

#include "server/tables/hub_detail.h"

namespace makruk::server {

namespace json = boost::json;
using namespace detail;

bool Hub::may_seek_at_front(const std::shared_ptr<Client>& c, const std::string& raw_code, const std::string& token) {
  if (raw_code.empty() || token.empty() || token.size() > 64 || !guard_.credential_allowed(c->ip)) return false;
  Table* p = find(normalise_code(raw_code));
  const int seat = p ? seat_of_token(*p, token, c->ip) : -1;
  if (seat < 0) {
    guard_.wrong_credential(c->ip);
    return false;
  }
  const int missing = p->called_off_seat();
  if (missing < 0 || missing == seat || now() - p->record().expired_at > limits_.front_again_ms) return false;
  return fronts_taken_.emplace(p->code(), now()).second;  // once
}

void Hub::once_read_for(const std::string& ip, const std::string& code, const std::string& token,
                        std::function<void()> then) {
  if (token.empty() || token.size() > 64 || !read_then(code, token, ip, true, then)) then();
}

void Hub::seek_front(const std::shared_ptr<Client>& c, const std::string& raw_code, const std::string& token,
                     std::function<void(bool)> done) {
  const std::string code = normalise_code(raw_code);
  once_read_for(c->ip, code, token, [this, c, code, token, done = std::move(done)] {
    done(may_seek_at_front(c, code, token));
  });
}

void Hub::decline_from_lobby(const std::shared_ptr<Client>& c, const std::string& raw_code,
                             const std::string& token) {
  const std::string code = normalise_code(raw_code);
  once_read_for(c->ip, code, token, [this, c, code, token] { decline_pairing(c, code, token); });
}

bool Hub::may_create(const std::string& ip) { return creates_.allow(ip, now(), limits_.create_per_minute, false); }

bool Hub::count_table(const std::string& ip) { return creates_.allow(ip, now(), limits_.create_per_minute); }

// A table for two paired seekers, started at once: the one who waited longer
// is the host (and White in the first game).
void Hub::pair(const Pairing& pairing, std::array<std::shared_ptr<Client>, 2> here) {
  TableRecord r;
  r.variant = pairing.agreed.variant;
  r.counting = pairing.agreed.counting;
  r.mode = pairing.agreed.mode;
  if (r.mode == "live") {
    r.clock_ms = limits_.paired_clock_ms;
    r.increment_ms = limits_.paired_increment_ms;
  }
  r.created_at = now();
  r.invite_key = random_token().substr(0, 16);
  store_paired_table(std::move(r), pairing, std::move(here), 0);
}

Lobby::Tables Hub::lobby_tables(Hub& first, size_t shards, OnShard on_shard) {
  Lobby::Tables t;
  // The pairings' tables spread over the hubs in turn (asked on the lobby's
  // executor only).
  auto next = std::make_shared<size_t>(0);
  t.pair = [on_shard, shards, next](const Pairing& pairing, std::array<std::shared_ptr<Client>, 2> here) {
    on_shard((*next)++ % shards, [pairing, here](Hub& h) { h.pair(pairing, here); });
  };
  t.playing = [on_shard, shards](std::function<void(int64_t)> done) {
    struct Sum {
      std::atomic<int64_t> players{0};
      std::atomic<size_t> left{0};
      std::function<void(int64_t)> done;
    };
    auto sum = std::make_shared<Sum>();
    sum->left = shards;
    sum->done = std::move(done);
    for (size_t i = 0; i < shards; ++i)
      on_shard(i, [sum](Hub& h) {
        sum->players += h.playing();
        if (--sum->left == 0) sum->done(sum->players.load());
      });
  };
  t.may_create = [&first](const std::string& ip) { return first.may_create(ip); };
  t.at_front = [on_shard, shards](const std::shared_ptr<Client>& c, const std::string& code,
                                  const std::string& token, std::function<void(bool)> done) {
    on_shard(shard_of(normalise_code(code), shards),
             [c, code, token, done](Hub& h) { h.seek_front(c, code, token, done); });
  };
  t.decline = [on_shard, shards](const std::shared_ptr<Client>& c, const std::string& code,
                                 const std::string& token) {
    on_shard(shard_of(normalise_code(code), shards), [c, code, token](Hub& h) { h.decline_from_lobby(c, code, token); });
  };
  return t;
}

void Hub::store_paired_table(TableRecord r, const Pairing& pairing, std::array<std::shared_ptr<Client>, 2> here,
                             int attempt) {
  r.code = new_code();
  const std::array<std::string, 2> tokens{random_token(), random_token()};
  const std::array<std::string, 2> names{pairing.first.name, pairing.second.name};
  auto made = std::make_shared<Table>(r);
  auto created = std::make_shared<bool>(false);
  creating_.insert(r.code);
  hold_on_bus(r.code);
  // Built and stored on the writer's thread (nothing else holds it yet). A
  // turn-based game begins at once (nobody need be there); a live one when
  // both players have come to the table.
  write_then(
      r.code,
      [made, created, r, tokens, names](Store& store) {
        store.create_table(r, SeatRecord{r.code, 0, names[0], hash_token(tokens[0])});
        *created = true;
        made->seats().push_back(Seat{names[0], hash_token(tokens[0]), 0});
        int seat = -1;
        made->add_player(store, names[1], hash_token(tokens[1]), seat);
        if (r.mode == "turn") made->begin_game(store, r.created_at);
      },
      [this, made, created, r, pairing, here, tokens, attempt](Table*, std::exception_ptr error) mutable {
        creating_.erase(r.code);
        if (error) hold_on_bus(r.code);  // not made: not held
        if (error && !*created && attempt < 2)
          return store_paired_table(std::move(r), pairing, std::move(here), attempt + 1);
        if (error) {
          const Error e = Error{ErrorCode::Conflict, {Msg::StorageFailed, {{"detail", "try again"}}}};
          for (const auto& c : here)
            if (c) send_error(*c, "", e);
          return;
        }
        const Seek* seekers[2] = {&pairing.first, &pairing.second};
        for (const Seek* s : seekers) creates_.allow(s->ip, r.created_at, limits_.create_per_minute);
        made->from_pairing = r.mode == "live";
        if (r.mode == "live") made->arrive_by = r.created_at + limits_.pairing_arrival_ms;
        auto [it, _] = tables_.emplace(r.code, std::move(*made));
        for (int seat = 0; seat < 2; ++seat) {
          json::object m{{"t", "paired"}, {"code", r.code}, {"token", tokens[size_t(seat)]}, {"seat", seat},
                         {"opponent", seekers[1 - seat]->name}, {"party", table_json(it->second)}};
          // A seeker connected to another instance is told there.
          if (!seekers[seat]->instance.empty()) {
            if (!bus_) continue;
            BusMessage b{r.code};
            b.to = seekers[seat]->instance;
            b.connection = seekers[seat]->id;
            b.paired = json::serialize(m);
            bus_->publish(b);
            continue;
          }
          const auto& c = here[size_t(seat)];
          if (!c) continue;
          if (it->second.arrive_by) pairing_seekers_[r.code].push_back(c);
          c->send(message(m));
        }
        if (it->second.arrive_by) {
          const std::string code = r.code;
          if (defer_) defer_(limits_.pairing_arrival_ms, [this, code] { check_pairing(code); });
        }
      });
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
  // Its beginning is being written: look again once it is.
  if (storing_.count(code)) return after_write(code, [this, code] { check_pairing(code); });
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
  if (storing_.count(code)) return after_write(code, [this, code] { check_first_move(code); });
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
        if (error || !p->apply_prepared(std::move(*called_off), t))
          // Another instance moved the game on, or the store is away: looked
          // at again once read again.
          return reload(p->code(), [this](Table* p) {
            if (p) watch_first_move(*p);
          });
        p->ended(t);
        after_change(*p, true, true, -1);  // the other instances read the table again
      });
}

int64_t Hub::playing() const {
  // Players at a running game with an open connection, among the tables someone watches.
  int64_t playing = 0;
  for (const auto& [code, _] : watchers_) {
    auto it = tables_.find(code);
    if (it == tables_.end() || !it->second.game() || it->second.game()->game.over()) continue;
    for (const Seat& s : it->second.seats()) playing += s.connections > 0;
  }
  return playing;
}

}  // namespace makruk::server
