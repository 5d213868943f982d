#include "compile/parameter_check.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace ktune {
namespace {

// Type traits written out rather than included: NVRTC may not find <type_traits>, and these few
// are all the check needs. Namespace-scope class templates only (NVRTC takes no host functions).
constexpr const char* kTraits = R"(
namespace ktune_parameter_check {
template <int I, class... R> struct nth { using type = void; };
template <int I, class T, class... R> struct nth<I, T, R...> { using type = typename nth<I - 1, R...>::type; };
template <class T, class... R> struct nth<0, T, R...> { using type = T; };
template <class F> struct signature { static constexpr int arity = -1; template <int I> using param = void; };
template <class R, class... A> struct signature<R (*)(A...)> {
  static constexpr int arity = int(sizeof...(A));
  template <int I> using param = typename nth<I, A...>::type;
};
template <class T> struct bare { using type = T; };
template <class T> struct bare<const T> { using type = T; };
template <class T> struct bare<volatile T> { using type = T; };
template <class T> struct bare<const volatile T> { using type = T; };
template <class T> struct is_const { static constexpr bool value = false; };
template <class T> struct is_const<const T> { static constexpr bool value = true; };
template <class T> struct is_const<const volatile T> { static constexpr bool value = true; };
template <class T> struct integer { static constexpr bool value = false; };
template <> struct integer<char> { static constexpr bool value = true; };
template <> struct integer<signed char> { static constexpr bool value = true; };
template <> struct integer<unsigned char> { static constexpr bool value = true; };
template <> struct integer<short> { static constexpr bool value = true; };
template <> struct integer<unsigned short> { static constexpr bool value = true; };
template <> struct integer<int> { static constexpr bool value = true; };
template <> struct integer<unsigned> { static constexpr bool value = true; };
template <> struct integer<long> { static constexpr bool value = true; };
template <> struct integer<unsigned long> { static constexpr bool value = true; };
template <> struct integer<long long> { static constexpr bool value = true; };
template <> struct integer<unsigned long long> { static constexpr bool value = true; };
template <class T> struct real { static constexpr bool value = false; };
template <> struct real<float> { static constexpr bool value = true; };
template <> struct real<double> { static constexpr bool value = true; };
template <class A, class B> struct same { static constexpr bool value = false; };
template <class A> struct same<A, A> { static constexpr bool value = true; };
template <class A, class E> struct fits {
  static constexpr bool value = same<A, E>::value || (sizeof(A) == sizeof(E) && ((integer<A>::value && integer<E>::value) ||
                                                                                  (real<A>::value && real<E>::value)));
};
template <class E> struct fits<void, E> { static constexpr bool value = false; };
template <class A, class E> struct fits<A*, E*> {
  static constexpr bool value =
      same<typename bare<A>::type, typename bare<E>::type>::value && (is_const<E>::value || !is_const<A>::value);
};
}  // namespace ktune_parameter_check
)";

// A string literal's contents.
std::string escaped(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

}  // namespace

std::string parameter_list(const std::vector<KernelParam>& params) {
  std::string out = "(";
  for (size_t i = 0; i < params.size(); ++i) out += (i ? ", " : "") + params[i].type + " " + params[i].what;
  return out + ")";
}

std::string parameter_check(const std::string& name_expression, const std::vector<KernelParam>& params) {
  if (params.empty()) return {};
  const std::string sig = fmt::format("ktune_parameter_check::signature<decltype(&{})>", name_expression);
  // The counts a kernel may take: all of them, or as many as come before an optional tail.
  std::string counts = fmt::format("{}::arity == {}", sig, params.size());
  std::string count_text = std::to_string(params.size());
  size_t first_optional = params.size();
  for (size_t i = 0; i < params.size(); ++i)
    if (params[i].may_end_before) {
      counts += fmt::format(" || {}::arity == {}", sig, i);
      count_text = fmt::format("{} or {}", i, count_text);
      first_optional = std::min(first_optional, i);
    }
  std::string out = "\n// ktune: the kernel's parameters against the arguments its family passes (compile/parameter_check.hpp)";
  out += kTraits;
  out += fmt::format("static_assert({}, \"ktune: {} must take {} parameters, as its family passes them: {}\");\n", counts,
                     escaped(name_expression), count_text, escaped(parameter_list(params)));
  for (size_t i = 0; i < params.size(); ++i) {
    const std::string present = i >= first_optional ? fmt::format("{}::arity <= {} || ", sig, i) : "";
    out += fmt::format("static_assert({}ktune_parameter_check::fits<{}::param<{}>, {}>::value, \"ktune: parameter {} of {} "
                       "must be {} ({}): the family passes {}\");\n",
                       present, sig, i, params[i].type, i + 1, escaped(name_expression), escaped(params[i].type),
                       escaped(params[i].what), escaped(parameter_list(params)));
  }
  return out;
}

}  // namespace ktune
