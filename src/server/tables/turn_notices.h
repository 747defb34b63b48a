// Turn notifications, a part of its own: Web Push to the player who must act
// at a turn-based table (the browsers' subscriptions, their caps per seat and
// per push service, the limit on subscribing per address, and what they are
// sent), and My games (a browser's view of the tables whose tokens it holds).
// One per process, on an executor of its own (never a table's): the store
// keeps the subscriptions, written and read through its own view of the
// store's writer; the seats that tokens hold are asked of the hubs holding
// the tables (TurnNotices::Tables), each reading its tables first if need be.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <boost/json/object.hpp>

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
  using Post = std::function<void(std::function<void()>)>;
  // A request's (code, token) pairs, in its order, at most 100.
  using Pairs = std::vector<std::pair<std::string, std::string>>;
  // A seat a token holds, with what My games shows of it.
  struct Seat {
    size_t index = 0;  // of its pair in the request
    std::string code;
    int seat = 0;
    boost::json::object game;  // see game_of
  };
  // What the hubs found of a request's pairs: the seats; the pairs holding
  // none (their codes, counted as wrong codes); or an error once the address
  // is limited.
  struct Found {
    std::vector<Seat> seats;
    std::vector<std::pair<size_t, std::string>> unknown;
    std::optional<Error> error;
  };
  // What it asks of the tables: the seats `pairs` hold, found by the hubs
  // holding their tables (each read first, if `ip` may look tables up by a
  // credential now); `then` may run on any thread.
  struct Tables {
    std::function<void(Pairs pairs, std::string ip, std::function<void(Found)> then)> seats;
  };
  struct Limits {
    int subscribe_per_minute = 20;    // push subscription requests, per address
    size_t per_seat = 10;             // subscriptions (browsers) per seat
    size_t services_per_seat = 4;     // distinct push services (origins) among them
  };

  // `post` runs work on this part's executor, where all its requests run.
  TurnNotices(Tables tables, std::function<int64_t()> now, Post post);

  void set_limits(const Limits& limits) { limits_ = limits; }
  // Where subscriptions are written and read: a view of the store's writer
  // whose answers come to this part's executor.
  void set_writer(StoreWriter* writer) { writer_ = writer; }
  // With other instances, the limit on subscribing counts across them.
  void set_bus(Bus* bus) { subscribes_.share(bus, "subscribe"); }
  // `deliver` hands a message to the sender (it must not block);
  // `public_key` is the VAPID key, base64url; plain-http endpoints are
  // refused unless `allow_http` (tests). Set before requests come.
  void set_push(std::string public_key, std::function<void(webpush::Delivery)> deliver, bool allow_http);

  // GET /api/push/key (any thread, once set up).
  Answer push_key() const;
  // POST /api/push/subscribe: checked, the seats asked of the tables, then
  // stored by the writer, then answered.
  void subscribe(const std::string& body, const std::string& ip, Respond respond);
  // POST /api/push/unsubscribe: removed by the writer, then answered.
  void unsubscribe(const std::string& body, Respond respond);
  // The push service said the subscription is gone (404/410).
  void drop(const std::string& endpoint);
  // POST /api/my-games: the seats asked of the tables, then answered.
  void my_games(const std::string& body, const std::string& ip, Respond respond);

  // From the thread of the table's hub: pushes to the seats that must now
  // act after `actor` did `kind` at a turn-based table ("expired": its time
  // ran out). What each seat is told is taken from the table now; the
  // table's subscriptions are read and the pushes sent on this part's
  // executor.
  void notify(const Table& p, int actor, const std::string& kind);
  // What My games shows of a seat (on the thread of the table's hub).
  static boost::json::object game_of(const Table& p, int seat);

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
  // A push subscription checked: the record to store and the request's
  // tables; then the seats found, stored off this thread, and answered.
  struct Plan {
    SubscriptionRecord rec;
    Pairs tables;
  };
  std::variant<Plan, Answer> check(const std::string& body, const std::string& ip);
  void store(SubscriptionRecord rec, Found found, Respond respond);

  Tables tables_;
  std::function<int64_t()> now_;
  Post post_;
  Limits limits_;
  StoreWriter* writer_ = nullptr;
  AddressLimiter subscribes_;
  std::function<void(webpush::Delivery)> deliver_;
  std::string public_key_;
  bool allow_http_ = false;
};

}  // namespace makruk::server
