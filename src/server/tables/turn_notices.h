// Turn notifications, a part of its own: Web Push to the player who must act
// at a turn-based table (the browsers' subscriptions, their caps per seat and
// per push service, the limit on subscribing per address, and what they are
// sent), and My games (a browser's view of the tables whose tokens it holds).
// It owns the subscriptions it knows of the tables in memory; the store has
// them all, written and read through the store's writer. What it asks of the
// tables (a table read into memory, the seat a token holds) goes through
// TurnNotices::Tables. It runs on the hub's executor.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "server/address_limiter.h"
#include "server/buses/bus.h"
#include "server/answer.h"
#include "server/push/webpush.h"
#include "server/stores/store.h"
#include "server/stores/store_writer.h"
#include "server/tables/table.h"

namespace makruk::server {

class TurnNotices {
 public:
  using Respond = std::function<void(Answer)>;
  using Seats = std::vector<std::pair<const Table*, int>>;
  // What it asks of the tables.
  struct Tables {
    // The codes of a request's table list that `ip` may look up now: those
    // not in memory are read off the hub's thread, then `then` runs here.
    std::function<void(const std::vector<std::string>& codes, std::function<void()> then)> open_all;
    // Whether `ip` may look up tables by a credential now (see Hub).
    std::function<bool(const std::string& ip)> credential_lookup_allowed;
    // The seat each (code, token) pair holds, in memory; wrong pairs go to
    // `unknown` and count as wrong codes (an error once the address is
    // limited).
    std::function<std::optional<Error>(const std::vector<std::pair<std::string, std::string>>& tables,
                                       const std::string& ip, Seats& seats, std::vector<std::string>& unknown)>
        resolve_seats;
    // Whether the table is in memory (its subscriptions are kept while it is).
    std::function<bool(const std::string& code)> in_memory;
  };
  struct Limits {
    int subscribe_per_minute = 20;    // push subscription requests, per address
    size_t per_seat = 10;             // subscriptions (browsers) per seat
    size_t services_per_seat = 4;     // distinct push services (origins) among them
  };

  TurnNotices(Tables tables, std::function<int64_t()> now);

  void set_limits(const Limits& limits) { limits_ = limits; }
  // Where subscriptions are written and read (the hub's writer).
  void set_writer(StoreWriter* writer) { writer_ = writer; }
  // With other instances, a table's subscriptions are read again before a
  // push (a browser may have subscribed at another one), and the limit on
  // subscribing counts across them.
  void set_bus(Bus* bus);
  void count_with(const TurnNotices& first) { subscribes_.count_with(first.subscribes_); }  // the hubs of one process
  // `deliver` hands a message to the sender (it must not block);
  // `public_key` is the VAPID key, base64url; plain-http endpoints are
  // refused unless `allow_http` (tests).
  void set_push(std::string public_key, std::function<void(webpush::Delivery)> deliver, bool allow_http);

  // GET /api/push/key.
  Answer push_key() const;
  // POST /api/push/subscribe: the tables named are read first; the
  // subscription is stored by the writer, then answered.
  void subscribe(const std::string& body, const std::string& ip, Respond respond);
  // POST /api/push/unsubscribe: removed by the writer, then answered.
  void unsubscribe(const std::string& body, Respond respond);
  // The push service said the subscription is gone (404/410).
  void drop(const std::string& endpoint);
  // POST /api/my-games: the tables named are read first, then answered.
  void my_games(const std::string& body, const std::string& ip, Respond respond);

  // Pushes to the seats that must now act after `actor` did `kind` at a
  // turn-based table ("expired": its time ran out).
  void notify(const Table& p, int actor, const std::string& kind);
  // A table read into memory, with its subscriptions; one leaving memory.
  void opened(const std::string& code, std::vector<SubscriptionRecord> subscriptions);
  void forget(const std::string& code) { subscriptions_.erase(code); }

  // Forgets the limit's windows that have emptied; its counts asked of the
  // bus and not yet answered (see AddressLimiter).
  void sweep(int64_t now) { subscribes_.sweep(now); }
  int limits_asking() const { return subscribes_.asking(); }

 private:
  struct Push {
    int seat = 0;
    std::string kind, opponent, move;
    bool over = false;  // the game is over: its result and why
    std::string result, reason;
  };
  void deliver(const std::string& code, const std::vector<Push>& pushes,
               const std::vector<SubscriptionRecord>& subscriptions);
  // A push subscription checked: the record to store (its code and seat set
  // for each), the seats it is for with what this instance knows of their
  // subscriptions, and the pairs that hold no seat; then stored off this
  // thread and answered.
  struct Plan {
    SubscriptionRecord rec;
    struct Seat {
      std::string code;
      int seat = 0;
      std::vector<SubscriptionRecord> list;
    };
    std::vector<Seat> seats;
    std::vector<std::string> unknown;
  };
  std::variant<Plan, Answer> check(const std::string& body, const std::string& ip);
  void store(const std::string& body, const std::string& ip, Respond respond);
  void forget_endpoint(const std::string& endpoint);  // in memory only
  // The codes of a request's table list that its address may look up now
  // (nothing for a malformed request).
  std::vector<std::string> codes_to_read(const std::string& body, const std::string& ip);
  Answer games(const std::string& body, const std::string& ip);

  Tables tables_;
  std::function<int64_t()> now_;
  Limits limits_;
  StoreWriter* writer_ = nullptr;
  bool shared_ = false;
  AddressLimiter subscribes_;
  std::map<std::string, std::vector<SubscriptionRecord>> subscriptions_;  // by table code
  std::function<void(webpush::Delivery)> deliver_;
  std::string public_key_;
  bool allow_http_ = false;
};

}  // namespace makruk::server
