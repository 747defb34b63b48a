// The community pages: the feedback board, recommendations and their
// maintainers' side. A part of its own, beside the tables: its own limits,
// its own store connection, and its own thread in the server, so that its
// reads and writes never hold a table up. Thread-safe (one call at a time).
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <variant>

#include "server/stores/store.h"
#include "server/tables/hub.h"

namespace makruk::server {

class Community {
 public:
  // The tables' answer for a table code and seat token: the seat, or the
  // refusal (no such seat: Forbidden, counted as a wrong code by the tables).
  using SeatCheck =
      std::function<std::variant<RecommendingSeat, Answer>(const std::string& code, const std::string& token,
                                                              const std::string& ip)>;

  Community(Store& store, std::function<int64_t()> now) : store_(store), now_(std::move(now)) {}

  // Items a minute per address (and per browser), and wrong admin secrets a
  // minute per address.
  void set_limits(int per_minute, int wrong_secrets_per_minute);
  void set_admin_secret(std::string secret);
  // Instances sharing a bus count the limits together.
  void share_limits(Bus* bus);
  // Forgets the limits' emptied windows (now and then).
  void sweep();

  Answer feedback_post(const std::string& body, const std::string& ip);
  Answer feedback_list();
  Answer recommend(const std::string& body, const std::string& ip, const SeatCheck& seat);
  Answer recommendations();
  // Behind the admin secret ("Authorization: Bearer SECRET").
  Answer admin_feedback_list(const std::string& authorization, const std::string& ip);
  Answer admin_feedback_update(const std::string& id, const std::string& body, const std::string& authorization,
                                  const std::string& ip);
  Answer admin_recommendations(const std::string& authorization, const std::string& ip);
  Answer admin_recommendation_update(const std::string& id, const std::string& body,
                                        const std::string& authorization, const std::string& ip);
  // Whether `authorization` holds the admin secret (compared in constant
  // time; past the limit of wrong ones an address is refused, the right one
  // too); otherwise false with the refusal (NotFound when there is no secret).
  bool admin(const std::string& authorization, const std::string& ip, Answer& refusal);

  // Own moves in a finished game a player needs before recommending.
  static constexpr int MOVES_TO_RECOMMEND = 5;

 private:
  bool admin_locked(const std::string& authorization, const std::string& ip, Answer& refusal);

  std::mutex mutex_;
  Store& store_;
  std::function<int64_t()> now_;
  int per_minute_ = 3;
  int wrong_secrets_per_minute_ = 10;
  std::string admin_secret_;
  AddressLimiter posts_, recommends_, admin_guesses_;
};

}  // namespace makruk::server
