// What the LAPACK *_vs_cpu test programs (lapack_vs_cpu_test.cpp: the factorizations;
// lapack_solve_vs_cpu_test.cpp: the solvers; lapack_decomposition_vs_cpu_test.cpp: the
// decompositions; lapack_eigen_lstsq_vs_cpu_test.cpp: the eigenproblems and least squares)
// share, on top of shim_test_harness.h: LAPACK names by precision, the name schemes a call may
// go through, guarded arrays, one call made through the shim and through OpenBLAS on identical
// operands, comparisons of what the two calls left, the check sequences of calls that run on
// the CPU (errors, workspace queries, small workspaces, empty problems), operands in double
// precision (well conditioned, so that two backward-stable results agree within a bound
// scaled by n eps), and main().
//
// A routine is a struct
//   struct Getrs : Named<"getrs"> {  // Named<"orgqr", "ungqr">: the complex name apart
//       template <class T, class I>
//       static void call(void* function, const Args&, Ints<I>&, Operands<T>&);
//   };
// where I is the integer type of the name scheme (int32_t, or int64_t for the 64_ names).
// Header-only; each test program includes it once.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "shim_test_harness.h"

// The libraries CMake names (tests/unit/variant_tests.cmake, lapack_vs_cpu.cmake); these
// defaults serve a build outside it.
#ifndef GPUSHIM_TEST_OPENBLAS_PATH
#define GPUSHIM_TEST_OPENBLAS_PATH "/usr/lib/x86_64-linux-gnu/libopenblas.so.0"
#endif
#ifndef GPUSHIM_TEST_OPENBLAS64_PATH
#define GPUSHIM_TEST_OPENBLAS64_PATH "/usr/lib/x86_64-linux-gnu/libopenblas64.so.0"
#endif

namespace gpushim::test_harness::lapack {

// --- Precisions and names -----------------------------------------------------------------
template <class T>
char prefix() {
    if constexpr (std::is_same_v<T, float>) return 's';
    if constexpr (std::is_same_v<T, double>) return 'd';
    if constexpr (std::is_same_v<T, c32>) return 'c';
    return 'z';
}

// A string literal as a template argument (Named's).
template <std::size_t N>
struct Literal {
    // NOLINTNEXTLINE(google-explicit-constructor): Named<"getrs"> converts the literal
    constexpr Literal(const char (&literal)[N]) { std::copy_n(literal, N, text); }
    char text[N] = {};
};

// A routine's base: its name in T's precision (dgetrs; dorgqr, zungqr).
template <Literal RealName, Literal ComplexName = RealName>
struct Named {
    template <class T>
    static std::string name() {
        return prefix<T>() + std::string(kIsComplex<T> ? ComplexName.text : RealName.text);
    }
};

using Precisions = testing::Types<float, double, c32, c64>;
class PrecisionNames {
  public:
    template <class T>
    static std::string GetName(int) {
        return std::string(1, prefix<T>());
    }
};

template <class T>
double epsilon() {
    return std::numeric_limits<Real<T>>::epsilon();
}

// --- Name schemes and libraries -----------------------------------------------------------
inline constexpr Scheme kSchemes[] = {Scheme::standard, Scheme::suffix64, Scheme::scipy64,
                                      Scheme::scipy32};

// Whether the shim finds a CPU LAPACK for the 64_ names in this process (Debian's ILP64
// libopenblas64.so.0). Asked of the shim itself, in a forked child: an empty call stays on
// the CPU, and a shim that finds no CPU symbol stops with a message.
inline bool cpu_has_64bit_lapack() {
    static const bool available = succeeds_in_child([] {
        using Dpotrf64 =
            void(const char*, const int64_t*, double*, const int64_t*, int64_t*, std::size_t);
        auto* fn = reinterpret_cast<Dpotrf64*>(dlsym(libraries().shim, "dpotrf_64_"));
        const int64_t n = 0, lda = 1;
        int64_t info = -99;
        double a[1] = {0};
        if (fn != nullptr) fn("U", &n, a, &lda, &info, 1);
        return fn != nullptr && info == 0;
    });
    return available;
}

// Whether a call that may run on the CPU can go through this scheme's names.
inline bool cpu_available(Scheme scheme) {
    switch (scheme) {
        case Scheme::standard:
            return true;
        case Scheme::suffix64:
            return cpu_has_64bit_lapack();
        case Scheme::scipy64:
        case Scheme::scipy32:
            return false;  // scipy_ names exist only inside a pip wheel's OpenBLAS
    }
    return false;
}

// The schemes a set of calls may go through: those with a CPU symbol; with
// `offloaded_only` (every call is valid, non-empty and succeeds on the device) also the
// others when the device certainly completes every call.
inline std::vector<Scheme> schemes_for(bool offloaded_only) {
    std::vector<Scheme> out;
    for (Scheme scheme : kSchemes) {
        if (cpu_available(scheme) || (offloaded_only && device_completes_every_call()))
            out.push_back(scheme);
    }
    return out;
}

// The schemes of a routine with a workspace argument: the shim asks the CPU library's
// workspace query before it offloads such a call, so only names with a CPU symbol can take it.
inline std::vector<Scheme> schemes_for_workspace_routines() {
    return schemes_for(/*offloaded_only=*/false);
}

struct Function {
    void* address = nullptr;
    bool wide = false;  // 64-bit integers
};
inline Function shim_function(const std::string& routine, Scheme scheme) {
    return {dlsym(libraries().shim, symbol_name(routine, scheme).c_str()), is_64(scheme)};
}
// The reference for a scheme: the ILP64 OpenBLAS (plain names, 64-bit integers) for the
// 64-bit schemes when it is installed, else the 32-bit OpenBLAS.
inline Function reference_function(const std::string& routine, Scheme scheme) {
    const Libraries& libs = libraries();
    const std::string name = routine + "_";
    if (is_64(scheme) && libs.openblas64 != nullptr)
        return {dlsym(libs.openblas64, name.c_str()), true};
    return {dlsym(libs.openblas, name.c_str()), false};
}

// --- Operands -----------------------------------------------------------------------------
inline constexpr int64_t kUnset = std::numeric_limits<int64_t>::min();  // an argument not set
inline constexpr int64_t kInfoUnset = 4711;
inline constexpr int64_t kIntUnset = -77;  // integer arrays (pivots, IWORK) before the call
inline constexpr int kGuard = 5;           // sentinel elements after every array

template <class X>
X unset_value() {
    if constexpr (std::is_integral_v<X>)
        return static_cast<X>(kIntUnset);
    else
        return sentinel_value<X>();
}

// One array argument: lda x cols elements (a vector: rows x 1), then kGuard guard elements,
// all the sentinel until set.
template <class X>
struct Array {
    int64_t rows = 0, cols = 0, lda = 1;
    std::vector<X> v;

    Array() = default;
    Array(int64_t r, int64_t c, int64_t ld) : rows(r), cols(c), lda(ld) {
        v.assign(
            static_cast<std::size_t>(std::max<int64_t>(ld, 1) * std::max<int64_t>(c, 1) + kGuard),
            unset_value<X>());
    }
    static Array vector(int64_t length) { return Array(length, 1, std::max<int64_t>(length, 1)); }

    X* data() { return v.empty() ? nullptr : v.data(); }
    X& at(int64_t i, int64_t j) { return v[static_cast<std::size_t>(j * lda + i)]; }
    const X& at(int64_t i, int64_t j) const { return v[static_cast<std::size_t>(j * lda + i)]; }
    // Storage position -> (i, j) inside rows x cols; false for padding and guard elements.
    bool logical(std::size_t p, int64_t& i, int64_t& j) const {
        const int64_t q = static_cast<int64_t>(p);
        if (q >= lda * cols) return false;
        i = q % lda;
        j = q / lda;
        return i < rows;
    }
};

// Every array argument a routine may take (those it does not take stay empty), INFO, and
// what the call printed when captured.
template <class T>
struct Operands {
    Array<T> a, b, c, u, vt, tau, work;
    Array<Real<T>> values, rwork;  // values: the eigenvalues W (real GEEV: WR) or S
    Array<int64_t> ipiv, iwork;
    int64_t info = kInfoUnset;
    std::string output;
    // The eigenvalue routines' further arguments: Z (SYEVR) or VR (GEEV), GEEV's VL, the
    // complex GEEV's W, the real GEEV's WI, SYEVR's ISUPPZ and M (the count found).
    Array<T> z, vl, w_complex;
    Array<Real<T>> wi;
    Array<int64_t> isuppz;
    int64_t found = kInfoUnset;
};

// The scalar arguments as passed (they may be invalid): flags holds the CHARACTER*1
// arguments in order; sizes left kUnset are not arguments of the routine.
struct Args {
    std::string flags = "";  // initialized, so that designated initializers may leave it out
    int64_t m = kUnset, n = kUnset, k = kUnset, nrhs = kUnset;
    int64_t lda = kUnset, ldb = kUnset, ldc = kUnset, ldu = kUnset, ldvt = kUnset;
    int64_t lwork = kUnset, lrwork = kUnset, liwork = kUnset;
    // SYGVD's ITYPE, SYEVR's IL and IU, the leading dimensions of Z (SYEVR), VL and VR (GEEV);
    // SYEVR's VL, VU (NaN: not set) and ABSTOL.
    int64_t itype = kUnset, il = kUnset, iu = kUnset;
    int64_t ldz = kUnset, ldvl = kUnset, ldvr = kUnset;
    double vl = std::numeric_limits<double>::quiet_NaN(),
           vu = std::numeric_limits<double>::quiet_NaN(), abstol = 0.0;

    const char* flag(std::size_t index) const { return flags.c_str() + index; }
};

// Whether a flag is `letter` (upper case), in either case.
inline bool same_flag(char flag, char letter) {
    return std::toupper(static_cast<unsigned char>(flag)) == letter;
}

inline std::string lower_case(std::string flags) {
    for (char& f : flags) f = static_cast<char>(std::tolower(static_cast<unsigned char>(f)));
    return flags;
}

// The integer arguments of a call as the routine's integer type I takes them (the sizes
// that are no arguments of the routine hold kUnset cut to I); INFO and SYEVR's M (the count
// found) come back through here.
template <class I>
struct Ints {
    I m, n, k, nrhs, lda, ldb, ldc, ldu, ldvt, lwork, lrwork, liwork;
    I itype, il, iu, ldz, ldvl, ldvr;
    I info, found;

    static Ints of(const Args& x, int64_t found_before) {
        const auto i = [](int64_t value) { return static_cast<I>(value); };
        return {i(x.m),      i(x.n),      i(x.k),     i(x.nrhs),     i(x.lda),
                i(x.ldb),    i(x.ldc),    i(x.ldu),   i(x.ldvt),     i(x.lwork),
                i(x.lrwork), i(x.liwork), i(x.itype), i(x.il),       i(x.iu),
                i(x.ldz),    i(x.ldvl),   i(x.ldvr),  i(kInfoUnset), i(found_before)};
    }
};

// Arguments that only the complex routines take (RWORK, LRWORK), or only the real ones
// (GEEV's WR and WI, where the complex GEEV takes W): call_fortran() drops them otherwise.
template <class T, class... A>
auto only_complex(A... args) {
    if constexpr (kIsComplex<T>)
        return std::tuple<A...>(args...);
    else
        return std::tuple<>();
}
template <class T, class... A>
auto only_real(A... args) {
    if constexpr (kIsComplex<T>)
        return std::tuple<>();
    else
        return std::tuple<A...>(args...);
}

template <class A>
std::tuple<A> spliced(A argument) {
    return std::tuple<A>(argument);
}
template <class... A>
std::tuple<A...> spliced(std::tuple<A...> arguments) {
    return arguments;
}

inline constexpr std::size_t kFlag = 1;  // the hidden length of a CHARACTER*1 argument

// Calls a LAPACK routine with `args` (only_complex() and only_real() spliced in), typed as
// they are: the ABI passes every pointer alike, so that no routine's signature needs writing
// out; what must not be a pointer is a hidden length, a std::size_t (an int would leave the
// upper half of its register or stack slot undefined).
template <class... A>
void call_fortran(void* function, A... args) {
    std::apply(
        [function](auto... flat) {
            static_assert(((std::is_pointer_v<decltype(flat)> ||
                            std::is_same_v<decltype(flat), std::size_t>)&&...),
                          "LAPACK takes pointers, and the lengths of CHARACTER arguments");
            reinterpret_cast<void (*)(decltype(flat)...)>(function)(flat...);
        },
        std::tuple_cat(spliced(args)...));
}

// An integer array argument of width I: copied from the int64_t array before the call and
// back after it (by the destructor, at the end of the routine's call()).
template <class I>
class IntArgument {
  public:
    explicit IntArgument(Array<int64_t>& array) : array_(array), v_(array.v.size()) {
        std::transform(array.v.begin(), array.v.end(), v_.begin(),
                       [](int64_t x) { return static_cast<I>(x); });
    }
    IntArgument(const IntArgument&) = delete;
    IntArgument& operator=(const IntArgument&) = delete;
    ~IntArgument() { std::copy(v_.begin(), v_.end(), array_.v.begin()); }
    I* data() { return v_.empty() ? nullptr : v_.data(); }

  private:
    Array<int64_t>& array_;
    std::vector<I> v_;
};

// --- Routines that several programs call -------------------------------------------------
// The factorizations: lapack_vs_cpu_test.cpp's subjects, and the makers of the solvers'
// operands (called on OpenBLAS only) in lapack_solve_vs_cpu_test.cpp.
struct Getrf : Named<"getrf"> {
    template <class T, class I>
    static void call(void* fn, const Args&, Ints<I>& i, Operands<T>& o) {
        IntArgument<I> ipiv(o.ipiv);
        call_fortran(fn, &i.m, &i.n, o.a.data(), &i.lda, ipiv.data(), &i.info);
    }
};

// POTRF's arguments, which POTRI takes too.
template <Literal Name>
struct UploMatrix : Named<Name> {
    template <class T, class I>
    static void call(void* fn, const Args& x, Ints<I>& i, Operands<T>& o) {
        call_fortran(fn, x.flag(0), &i.n, o.a.data(), &i.lda, &i.info, kFlag);
    }
};
using Potrf = UploMatrix<"potrf">;

struct Sytrf : Named<"sytrf"> {
    template <class T, class I>
    static void call(void* fn, const Args& x, Ints<I>& i, Operands<T>& o) {
        IntArgument<I> ipiv(o.ipiv);
        call_fortran(fn, x.flag(0), &i.n, o.a.data(), &i.lda, ipiv.data(), o.work.data(), &i.lwork,
                     &i.info, kFlag);
    }
};

// --- Calls --------------------------------------------------------------------------------
template <class R, class I, class T>
void call_as(void* function, const Args& args, Operands<T>& ops) {
    Ints<I> ints = Ints<I>::of(args, ops.found);
    R::template call<T, I>(function, args, ints, ops);
    ops.info = ints.info;
    ops.found = ints.found;
}

template <class R, class T>
void invoke(const Function& function, const Args& args, Operands<T>& ops, bool capture) {
    if (capture) {
        std::fflush(stdout);
        std::fflush(stderr);
        testing::internal::CaptureStdout();
        testing::internal::CaptureStderr();
    }
    if (function.wide)
        call_as<R, int64_t>(function.address, args, ops);
    else
        call_as<R, int32_t>(function.address, args, ops);
    if (capture) {
        std::fflush(stdout);
        std::fflush(stderr);
        ops.output = testing::internal::GetCapturedStdout();
        ops.output += testing::internal::GetCapturedStderr();
    }
}

template <class R, class T>
std::string describe(Scheme scheme, const Args& args) {
    std::ostringstream s;
    s << symbol_name(R::template name<T>(), scheme) << " [" << scheme_name(scheme) << "]";
    if (!args.flags.empty()) s << " flags=" << args.flags;
    const std::pair<const char*, int64_t> sizes[] = {
        {"m", args.m},         {"n", args.n},           {"k", args.k},
        {"nrhs", args.nrhs},   {"lda", args.lda},       {"ldb", args.ldb},
        {"ldc", args.ldc},     {"ldu", args.ldu},       {"ldvt", args.ldvt},
        {"lwork", args.lwork}, {"lrwork", args.lrwork}, {"liwork", args.liwork}};
    for (const auto& [label, value] : sizes) {
        if (value != kUnset) s << ' ' << label << '=' << value;
    }
    const std::pair<const char*, int64_t> eigen_sizes[] = {
        {"itype", args.itype}, {"il", args.il},     {"iu", args.iu},
        {"ldz", args.ldz},     {"ldvl", args.ldvl}, {"ldvr", args.ldvr}};
    for (const auto& [label, value] : eigen_sizes) {
        if (value != kUnset) s << ' ' << label << '=' << value;
    }
    if (!std::isnan(args.vl) || !std::isnan(args.vu))
        s << " vl=" << args.vl << " vu=" << args.vu << " abstol=" << args.abstol;
    return s.str();
}

// The same call through the shim's name of a scheme and through OpenBLAS, each on its own
// copy of the operands; `what` describes it for the messages of failed checks.
template <class T>
struct Pair {
    Operands<T> shim, ref;
    std::string what;
};

template <class R, class T>
Pair<T> run_both(Scheme scheme, const Args& args, const Operands<T>& input, bool capture = false) {
    const std::string name = R::template name<T>();
    Pair<T> p{input, input, describe<R, T>(scheme, args)};
    const Function shim = shim_function(name, scheme);
    const Function ref = reference_function(name, scheme);
    EXPECT_NE(shim.address, nullptr) << symbol_name(name, scheme) << " in the shim";
    EXPECT_NE(ref.address, nullptr) << name << "_ in OpenBLAS";
    if (shim.address == nullptr || ref.address == nullptr) return p;
    invoke<R>(ref, args, p.ref, capture);
    invoke<R>(shim, args, p.shim, capture);
    return p;
}

// OpenBLAS alone: the reference of a scheme (operands the tests derive, workspace queries).
template <class R, class T>
Operands<T> run_reference(Scheme scheme, const Args& args, Operands<T> ops) {
    const Function ref = reference_function(R::template name<T>(), scheme);
    EXPECT_NE(ref.address, nullptr) << R::template name<T>() << "_ in OpenBLAS";
    if (ref.address != nullptr) invoke<R>(ref, args, ops, /*capture=*/false);
    return ops;
}

// OpenBLAS's answer to the workspace query of a call: the operands after the call with LWORK
// (and LRWORK, LIWORK where the routine takes them) -1 and one-element workspaces.
template <class R, class T>
Operands<T> workspace_query(Scheme scheme, Args args, Operands<T> ops) {
    args.lwork = -1;
    ops.work = Array<T>::vector(1);
    if (args.lrwork != kUnset) {
        args.lrwork = -1;
        ops.rwork = Array<Real<T>>::vector(1);
    }
    if (args.liwork != kUnset) {
        args.liwork = -1;
        ops.iwork = Array<int64_t>::vector(1);
    }
    return run_reference<R>(scheme, args, std::move(ops));
}

// A workspace size as LAPACK returns it in WORK(1), RWORK(1) or IWORK(1).
template <class X>
int64_t workspace_size(const Array<X>& array) {
    return static_cast<int64_t>(std::real(array.v.at(0)));
}

// The workspaces that the query answered, `extra` elements longer each.
template <class T>
void give_workspaces(const Operands<T>& query, int64_t extra, Args& args, Operands<T>& ops) {
    args.lwork = workspace_size(query.work) + extra;
    ops.work = Array<T>::vector(args.lwork);
    if (args.lrwork != kUnset) {
        args.lrwork = workspace_size(query.rwork) + extra;
        ops.rwork = Array<Real<T>>::vector(args.lrwork);
    }
    if (args.liwork != kUnset) {
        args.liwork = workspace_size(query.iwork) + extra;
        ops.iwork = Array<int64_t>::vector(args.liwork);
    }
}

// The operands with the workspaces that OpenBLAS's query (`query`) answers for the call,
// `extra` elements longer each, in `args` too.
template <class R, class T>
Operands<T> with_queried_workspaces(Scheme scheme, Args& args, Operands<T> ops, int64_t extra,
                                    Operands<T>& query) {
    query = workspace_query<R>(scheme, args, ops);
    give_workspaces(query, extra, args, ops);
    return ops;
}

// The same for SYTRF and SYSV (which calls it), whose WORK array is N elements longer than
// LWORK says: Debian's OpenBLAS 0.3.21 CSYTRF and ZSYTRF with UPLO = 'U' read up to N - 1
// elements past the N * NB their query asks for (seen with a guard page).
template <class R, class T>
Operands<T> with_bunch_kaufman_workspace(Scheme scheme, Args& args, Operands<T> ops, int64_t extra,
                                         Operands<T>& query) {
    ops = with_queried_workspaces<R>(scheme, args, std::move(ops), extra, query);
    ops.work = Array<T>::vector(args.lwork + args.n);
    return ops;
}

// --- Comparison ---------------------------------------------------------------------------
template <class X>
std::string text(const X& x) {
    if constexpr (std::is_integral_v<X>)
        return std::to_string(x);
    else
        return show(x);
}

template <class X>
double distance(const X& x, const X& y) {
    if constexpr (std::is_integral_v<X>)
        return std::abs(static_cast<double>(x) - static_cast<double>(y));
    else
        return static_cast<double>(std::abs(x - y));
}

// Where an array's logical element (i, j) may change: not at all (bit for bit), to within a
// tolerance of OpenBLAS's, or to anything (destroyed, or checked otherwise: vectors that
// may differ by sign or phase). Padding and guard elements never change.
enum class Region { untouched, compared, unspecified };

inline Region everywhere(int64_t, int64_t) {
    return Region::compared;
}
inline Region nowhere(int64_t, int64_t) {
    return Region::untouched;
}
inline Region anything(int64_t, int64_t) {
    return Region::unspecified;
}

// Whether (i, j) lies in the uplo triangle ('U'/'u' or 'L'/'l'), with or without its diagonal.
inline bool in_triangle(char uplo, int64_t i, int64_t j, bool diagonal = true) {
    if (i == j) return diagonal;
    return (uplo == 'U' || uplo == 'u') ? i < j : i > j;
}

// `inside` in the uplo triangle (with its diagonal when `diagonal`), untouched elsewhere.
inline auto triangle_region(char uplo, bool diagonal = true, Region inside = Region::compared) {
    return [=](int64_t i, int64_t j) {
        return in_triangle(uplo, i, j, diagonal) ? inside : Region::untouched;
    };
}

// Compares one array the shim's call left with the input and OpenBLAS's: see Region; NaN
// never agrees. Empty: agreement.
template <class X, class RegionOf>
std::string compare_array(const char* name, const Array<X>& input, const Array<X>& shim,
                          const Array<X>& ref, RegionOf&& region, double tol) {
    if (shim.v.size() != input.v.size() || ref.v.size() != input.v.size())
        return std::string(name) + ": array sizes differ";
    int mismatches = 0;
    std::ostringstream first;
    for (std::size_t p = 0; p < input.v.size(); ++p) {
        int64_t i = -1, j = -1;
        const bool logical = input.logical(p, i, j);
        const Region where = logical ? region(i, j) : Region::untouched;
        if (where == Region::compared) {
            const double err = distance(shim.v[p], ref.v[p]);
            if (!(err <= tol) && mismatches++ == 0) {
                first << name << "(" << i + 1 << ", " << j + 1 << "): shim " << text(shim.v[p])
                      << ", OpenBLAS " << text(ref.v[p]) << ", |difference| " << err << " > "
                      << tol;
            }
        } else if (where == Region::untouched && !same_bits(shim.v[p], input.v[p])) {
            if (mismatches++ == 0) {
                first << name << " storage position " << p;
                if (logical)
                    first << " = (" << i + 1 << ", " << j + 1 << "), not to be written,";
                else if (static_cast<int64_t>(p) >= input.lda * std::max<int64_t>(input.cols, 1))
                    first << " (guard after the array)";
                else
                    first << " (padding: row " << i + 1 << " of column " << j + 1 << ")";
                first << " changed from " << text(input.v[p]) << " to " << text(shim.v[p]);
            }
        }
    }
    if (mismatches == 0) return "";
    std::ostringstream s;
    s << mismatches << " elements differ; first " << first.str();
    return s.str();
}

template <class X>
std::string compare_untouched(const char* name, const Array<X>& input, const Array<X>& got) {
    return compare_array(name, input, got, got, nowhere, 0.0);
}

template <class X>
bool identical(const Array<X>& x, const Array<X>& y) {
    return x.v.size() == y.v.size() &&
           (x.v.empty() || std::memcmp(x.v.data(), y.v.data(), x.v.size() * sizeof(X)) == 0);
}

template <class X>
void note_first_difference(const char* name, const Array<X>& shim, const Array<X>& ref,
                           std::ostringstream& s) {
    if (identical(shim, ref)) return;
    if (shim.v.size() != ref.v.size()) {
        s << name << ": array sizes differ; ";
        return;
    }
    for (std::size_t q = 0; q < ref.v.size(); ++q) {
        if (!same_bits(shim.v[q], ref.v[q])) {
            s << name << " storage position " << q << " (" << q % ref.lda + 1 << ", "
              << q / ref.lda + 1 << "): shim " << text(shim.v[q]) << ", OpenBLAS " << text(ref.v[q])
              << "; ";
            return;
        }
    }
}

// Every array of two sets of operands, bit for bit. Empty: identical.
template <class T>
std::string compare_arrays_exactly(const Operands<T>& shim, const Operands<T>& ref) {
    std::ostringstream s;
    note_first_difference("A", shim.a, ref.a, s);
    note_first_difference("B", shim.b, ref.b, s);
    note_first_difference("C", shim.c, ref.c, s);
    note_first_difference("U", shim.u, ref.u, s);
    note_first_difference("VT", shim.vt, ref.vt, s);
    note_first_difference("TAU", shim.tau, ref.tau, s);
    note_first_difference("WORK", shim.work, ref.work, s);
    note_first_difference("W/S", shim.values, ref.values, s);
    note_first_difference("RWORK", shim.rwork, ref.rwork, s);
    note_first_difference("IPIV", shim.ipiv, ref.ipiv, s);
    note_first_difference("IWORK", shim.iwork, ref.iwork, s);
    note_first_difference("Z/VR", shim.z, ref.z, s);
    note_first_difference("VL", shim.vl, ref.vl, s);
    note_first_difference("W", shim.w_complex, ref.w_complex, s);
    note_first_difference("WI", shim.wi, ref.wi, s);
    note_first_difference("ISUPPZ", shim.isuppz, ref.isuppz, s);
    return s.str();
}

// Everything the two calls left (arrays, INFO, output), bit for bit. Empty: identical.
template <class T>
std::string compare_exact(const Pair<T>& p) {
    std::ostringstream s;
    if (p.shim.info != p.ref.info)
        s << "INFO: shim " << p.shim.info << ", OpenBLAS " << p.ref.info << "; ";
    if (p.shim.found != p.ref.found)
        s << "M: shim " << p.shim.found << ", OpenBLAS " << p.ref.found << "; ";
    s << compare_arrays_exactly(p.shim, p.ref);
    if (p.shim.output != p.ref.output)
        s << "output: shim \"" << p.shim.output << "\", OpenBLAS \"" << p.ref.output << "\"";
    return s.str();
}

template <class T>
void expect_success(const Pair<T>& p) {
    EXPECT_EQ(p.ref.info, 0) << p.what << ": OpenBLAS";
    EXPECT_EQ(p.shim.info, 0) << p.what;
}

// An invalid argument reaches OpenBLAS: its xerbla message (Debian's prints on stdout and
// returns) naming the first invalid argument, at position -info; INFO = info, except where
// `info_may_stay_unset` (OpenBLAS 0.3.21's own GETRS prints the message and returns without
// setting INFO); the arrays untouched but for WORK(1), RWORK(1) and IWORK(1), which some
// routines (GETRI, GEQRF, SYEVD) set before they check. The shim's call leaves all that bit
// for bit.
template <class R, class T>
void expect_rejected_as_by_openblas(Scheme scheme, const Args& args, const Operands<T>& input,
                                    int64_t info, bool info_may_stay_unset = false) {
    const Pair<T> p = run_both<R>(scheme, args, input, /*capture=*/true);
    const std::string& what = p.what;
    if (!(info_may_stay_unset && p.ref.info == kInfoUnset)) {
        EXPECT_EQ(p.ref.info, info) << what << ": OpenBLAS";
    }
    const std::string message = "parameter number " + std::string(-info < 10 ? " " : "") +
                                std::to_string(-info) + " had an illegal value";
    EXPECT_NE(p.ref.output.find(message), std::string::npos)
        << what << ": OpenBLAS printed \"" << p.ref.output << "\", not \"" << message << "\"";
    Operands<T> written = p.ref;
    const auto restore_first = [](auto& array, const auto& before) {
        if (!array.v.empty()) array.v[0] = before.v[0];
    };
    restore_first(written.work, input.work);
    restore_first(written.rwork, input.rwork);
    restore_first(written.iwork, input.iwork);
    EXPECT_EQ(compare_arrays_exactly(written, input), "") << what << ": OpenBLAS wrote";
    EXPECT_EQ(compare_exact(p), "") << what;
}

// WORK(1) (RWORK(1), IWORK(1)) after a successful call: what OpenBLAS's own call left,
// whether the shim offloaded the call or not (where LAPACK leaves the workspace it used, as
// GETRI, or the larger of its query's answer and an inner routine's, as SYGVD, that is not
// the query's answer).
template <class X>
std::string check_workspace_answer(const char* name, const Array<X>& shim, const Array<X>& query,
                                   const Array<X>& ref) {
    if (same_bits(shim.v.at(0), ref.v.at(0))) return "";
    return std::string(name) + "(1): shim " + text(shim.v[0]) + ", OpenBLAS's query " +
           text(query.v[0]) + ", OpenBLAS's call " + text(ref.v[0]);
}

// After a successful call: the workspaces' guards untouched (their contents are LAPACK's),
// WORK(1), and RWORK(1) and IWORK(1) where LRWORK and LIWORK are arguments, as
// check_workspace_answer() says. Empty: as expected.
template <class T>
std::string check_workspaces(const Args& args, const Operands<T>& input, const Operands<T>& query,
                             const Pair<T>& p) {
    std::string s;
    const auto add = [&s](const std::string& problem) {
        if (!problem.empty()) s += (s.empty() ? "" : "; ") + problem;
    };
    add(compare_array("WORK", input.work, p.shim.work, p.ref.work, anything, 0.0));
    add(compare_array("RWORK", input.rwork, p.shim.rwork, p.ref.rwork, anything, 0.0));
    add(compare_array("IWORK", input.iwork, p.shim.iwork, p.ref.iwork, anything, 0.0));
    add(check_workspace_answer("WORK", p.shim.work, query.work, p.ref.work));
    if (args.lrwork != kUnset)
        add(check_workspace_answer("RWORK", p.shim.rwork, query.rwork, p.ref.rwork));
    if (args.liwork != kUnset)
        add(check_workspace_answer("IWORK", p.shim.iwork, query.iwork, p.ref.iwork));
    return s;
}

template <class T>
double tolerance(int64_t k, double scale) {
    return 32.0 * static_cast<double>(k + 4) * epsilon<T>() * scale;
}

template <class X>
double max_abs(const Array<X>& a) {
    double m = 0.0;
    for (std::size_t p = 0; p < a.v.size(); ++p) {
        int64_t i = 0, j = 0;
        if (!a.logical(p, i, j)) continue;
        const double x = std::abs(a.v[p]);
        if (std::isfinite(x)) m = std::max(m, x);
    }
    return m;
}

// An array compared everywhere with OpenBLAS's within tolerance() for k, scaled by the
// largest element of the input or of OpenBLAS's result (factors may grow past the input).
template <class T>
std::string compare_to_scale(const char* name, const Array<T>& input, const Array<T>& shim,
                             const Array<T>& ref, int64_t k) {
    return compare_array(name, input, shim, ref, everywhere,
                         tolerance<T>(k, std::max(max_abs(input), max_abs(ref))));
}

// --- Matrices in double precision ---------------------------------------------------------
// Column-major, complex double: operands are made here and converted to the precision under
// test; residuals are computed here.
struct Dense {
    int64_t rows = 0, cols = 0;
    std::vector<c64> v;

    Dense(int64_t r, int64_t c) : rows(r), cols(c), v(static_cast<std::size_t>(r * c)) {}
    c64& operator()(int64_t i, int64_t j) { return v[static_cast<std::size_t>(j * rows + i)]; }
    const c64& operator()(int64_t i, int64_t j) const {
        return v[static_cast<std::size_t>(j * rows + i)];
    }
};

inline Dense identity(int64_t n) {
    Dense d(n, n);
    for (int64_t i = 0; i < n; ++i) d(i, i) = 1.0;
    return d;
}

inline Dense adjoint(const Dense& x) {
    Dense y(x.cols, x.rows);
    for (int64_t j = 0; j < x.cols; ++j)
        for (int64_t i = 0; i < x.rows; ++i) y(j, i) = std::conj(x(i, j));
    return y;
}

inline Dense product(const Dense& x, const Dense& y) {
    Dense z(x.rows, y.cols);
    for (int64_t j = 0; j < y.cols; ++j) {
        for (int64_t l = 0; l < x.cols; ++l) {
            const c64 ylj = y(l, j);
            if (ylj == 0.0) continue;
            for (int64_t i = 0; i < x.rows; ++i) z(i, j) += x(i, l) * ylj;
        }
    }
    return z;
}

inline Dense difference(const Dense& x, const Dense& y) {
    Dense z = x;
    for (std::size_t p = 0; p < z.v.size(); ++p) z.v[p] -= y.v[p];
    return z;
}

inline double frobenius(const Dense& x) {
    double s = 0.0;
    for (const c64& e : x.v) s += std::norm(e);
    return std::sqrt(s);
}

// Z diag(w).
inline Dense scaled_columns(Dense z, const std::vector<double>& w) {
    for (int64_t j = 0; j < z.cols; ++j)
        for (int64_t i = 0; i < z.rows; ++i) z(i, j) *= w[static_cast<std::size_t>(j)];
    return z;
}

// ||G - I||_F / (n eps): G = Z^H Z (orthonormal columns) or Z^H B Z (B-normalized).
template <class T>
double identity_ratio(const Dense& g, int64_t n) {
    return frobenius(difference(g, identity(g.cols))) /
           (static_cast<double>(std::max<int64_t>(n, 1)) * epsilon<T>());
}

// LAPACK's test ratios (residuals over n eps) pass below 30.
inline constexpr double kResidualLimit = 30.0;

inline std::string ratio_problem(const char* what, double ratio) {
    if (ratio < kResidualLimit) return "";
    return std::string(what) + " ratio " + std::to_string(ratio) +
           " >= " + std::to_string(kResidualLimit);
}

// The first `count` elements of a real array (eigenvalues, singular values).
template <class X>
std::vector<double> values_of(const Array<X>& a, int64_t count) {
    return std::vector<double>(a.v.begin(), a.v.begin() + count);
}

// The rows x cols block of an array at (row0, col0), in double precision.
template <class X>
Dense dense_of(const Array<X>& a, int64_t rows, int64_t cols, int64_t row0 = 0, int64_t col0 = 0) {
    Dense d(rows, cols);
    for (int64_t j = 0; j < cols; ++j)
        for (int64_t i = 0; i < rows; ++i) d(i, j) = c64(a.at(row0 + i, col0 + j));
    return d;
}

// `d` in an array with leading dimension lda, in T's precision; logical elements for which
// keep(i, j) is false hold NaN (the routine must not read them).
template <class T, class Keep>
Array<T> array_of(const Dense& d, int64_t lda, Keep&& keep) {
    Array<T> a(d.rows, d.cols, lda);
    for (int64_t j = 0; j < d.cols; ++j) {
        for (int64_t i = 0; i < d.rows; ++i)
            a.at(i, j) =
                keep(i, j) ? make_value<T>(d(i, j).real(), d(i, j).imag()) : nan_value<T>();
    }
    return a;
}
template <class T>
Array<T> array_of(const Dense& d, int64_t lda) {
    return array_of<T>(d, lda, [](int64_t, int64_t) { return true; });
}

// The uplo triangle of the Hermitian h, the other triangle NaN (not to be read).
template <class T>
Array<T> triangle_of(const Dense& h, char uplo, int64_t lda) {
    return array_of<T>(h, lda, [uplo](int64_t i, int64_t j) { return in_triangle(uplo, i, j); });
}

// Entries uniform in [-1, 1] (real and imaginary parts).
inline Dense random_dense(int64_t m, int64_t n, bool complex, Rng& rng) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Dense d(m, n);
    for (c64& x : d.v) {
        const double re = u(rng);
        x = c64(re, complex ? u(rng) : 0.0);
    }
    return d;
}

// P (R + c I): R random, I the m x n identity, c = 1.5 (sqrt(m) + sqrt(n)) about twice
// ||R||_2, so that the condition number stays below about 4; P a random row permutation,
// so that partial pivoting permutes (each column's largest entry is its shifted one).
inline Dense well_conditioned(int64_t m, int64_t n, bool complex, Rng& rng) {
    const Dense r = random_dense(m, n, complex, rng);
    const double c = 1.5 * (std::sqrt(static_cast<double>(m)) + std::sqrt(static_cast<double>(n)));
    std::vector<int64_t> rows(static_cast<std::size_t>(m));
    std::iota(rows.begin(), rows.end(), int64_t{0});
    std::shuffle(rows.begin(), rows.end(), rng);
    Dense a(m, n);
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < m; ++i) {
            const int64_t from = rows[static_cast<std::size_t>(i)];
            a(i, j) = r(from, j) + (from == j ? c : 0.0);
        }
    }
    return a;
}

// (B + B^H) / 2, B random: a Hermitian (real: symmetric) matrix, indefinite.
inline Dense random_hermitian(int64_t n, bool complex, Rng& rng) {
    const Dense b = random_dense(n, n, complex, rng);
    Dense h(n, n);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) h(i, j) = 0.5 * (b(i, j) + std::conj(b(j, i)));
    return h;
}

// B^H B / n + I, B random: Hermitian positive definite, eigenvalues in [1, 3.7] (the
// Marchenko-Pastur edge of B^H B / n is 4 times the variance of an entry, at most 2/3).
inline Dense random_hpd(int64_t n, bool complex, Rng& rng) {
    const Dense b = random_dense(n, n, complex, rng);
    Dense h = product(adjoint(b), b);
    for (c64& x : h.v) x /= static_cast<double>(n);
    for (int64_t i = 0; i < n; ++i) h(i, i) = c64(h(i, i).real() + 1.0, 0.0);
    return h;
}

// R, upper triangular with a positive diagonal, with h = R^H R (h Hermitian positive
// definite).
inline Dense cholesky_upper(const Dense& h) {
    const int64_t n = h.rows;
    Dense r(n, n);
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i <= j; ++i) {
            c64 s = h(i, j);
            for (int64_t l = 0; l < i; ++l) s -= std::conj(r(l, i)) * r(l, j);
            r(i, j) = i == j ? c64(std::sqrt(s.real()), 0.0) : s / r(i, i).real();
        }
    }
    return r;
}

// The call runs on the CPU (a workspace query, a small workspace, an error): everything
// bit-identical to OpenBLAS's, whose INFO is `info`.
template <class R, class T>
void expect_exactly_openblas(Scheme scheme, const Args& args, const Operands<T>& input,
                             const std::string& why, int64_t info = 0) {
    const Pair<T> p = run_both<R>(scheme, args, input);
    const std::string what = p.what + " " + why;
    EXPECT_EQ(p.ref.info, info) << what << ": OpenBLAS";
    EXPECT_EQ(compare_exact(p), "") << what;
}

// Each workspace of the call set to -1 (a one-element array), the others the optimal ones:
// each such query runs on the CPU and gives OpenBLAS's answers, nothing else written.
template <class R, class T>
void expect_each_workspace_query(Scheme scheme, Args args, Operands<T> input) {
    const std::string why = "(workspace query)";
    give_workspaces(workspace_query<R>(scheme, args, input), 0, args, input);
    Args query = args;
    Operands<T> operands = input;
    query.lwork = -1;
    operands.work = Array<T>::vector(1);
    expect_exactly_openblas<R>(scheme, query, operands, why);
    if (args.lrwork != kUnset) {
        query = args;
        operands = input;
        query.lrwork = -1;
        operands.rwork = Array<Real<T>>::vector(1);
        expect_exactly_openblas<R>(scheme, query, operands, why);
    }
    if (args.liwork != kUnset) {
        query = args;
        operands = input;
        query.liwork = -1;
        operands.iwork = Array<int64_t>::vector(1);
        expect_exactly_openblas<R>(scheme, query, operands, why);
    }
}

// Valid workspaces below the optimal ones, one at a time (the others optimal): LWORK `lwork`
// (LAPACK's minimum) and the optimum less one, where below the optimum; likewise LRWORK and
// LIWORK where the routine takes them and a minimum is given. Each such call runs on the CPU:
// everything bit-identical to OpenBLAS's.
template <class R, class T>
void expect_small_workspaces_as_openblas(Scheme scheme, Args args, Operands<T> input, int64_t lwork,
                                         int64_t lrwork = kUnset, int64_t liwork = kUnset) {
    const Operands<T> query = workspace_query<R>(scheme, args, input);
    give_workspaces(query, 0, args, input);
    const auto below = [&](auto size, auto array, int64_t minimum) {
        if (args.*size == kUnset || minimum == kUnset) return;
        const int64_t optimal = workspace_size(query.*array);
        for (int64_t value : {minimum, optimal - 1}) {
            if (value < minimum || value >= optimal) continue;
            Args small = args;
            Operands<T> operands = input;
            small.*size = value;
            operands.*array = std::decay_t<decltype(operands.*array)>::vector(value);
            expect_exactly_openblas<R>(scheme, small, operands, "(small workspace)");
        }
    };
    below(&Args::lwork, &Operands<T>::work, lwork);
    below(&Args::lrwork, &Operands<T>::rwork, lrwork);
    below(&Args::liwork, &Operands<T>::iwork, liwork);
}

// Nothing to compute (m, n or k zero), with the workspaces of OpenBLAS's query, one element
// longer: INFO 0, and everything bit for bit OpenBLAS's but WORK, RWORK and IWORK, which
// check_workspaces() checks.
template <class R, class T>
void expect_empty_problem_as_openblas(Scheme scheme, Args args, Operands<T> input) {
    const Operands<T> query = workspace_query<R>(scheme, args, input);
    give_workspaces(query, 1, args, input);
    Pair<T> p = run_both<R>(scheme, args, input);
    p.what += " (empty)";
    expect_success(p);
    Pair<T> rest = p;
    for (Operands<T>* o : {&rest.shim, &rest.ref}) {
        o->work = Array<T>();
        o->rwork = Array<Real<T>>();
        o->iwork = Array<int64_t>();
    }
    EXPECT_EQ(compare_exact(rest), "") << p.what;
    EXPECT_EQ(check_workspaces(args, input, query, p), "") << p.what;
}

// --- Cases --------------------------------------------------------------------------------
inline constexpr int64_t kOrders[] = {1, 7, 33, 70};

struct Shape {
    int64_t m, n;
};

// Each scheme, order n of kOrders and padding of the leading dimensions (0 or 3) with each of
// `flags`; flags that start lower-case only padded, as the upper-case ones cover the rest.
template <class Body>
void for_each_case(const std::vector<Scheme>& schemes, std::initializer_list<const char*> flags,
                   Body&& body) {
    for (Scheme scheme : schemes) {
        for (int64_t n : kOrders) {
            for (int64_t pad : {0, 3}) {
                for (const char* f : flags) {
                    if (pad == 0 && std::islower(static_cast<unsigned char>(f[0]))) continue;
                    body(scheme, n, pad, std::string(f));
                }
            }
        }
    }
}

// --- main() -------------------------------------------------------------------------------
// The shim reads its configuration once, at its first call: start_harness() sets it before
// any test runs.
inline int run_all_tests(int argc, char** argv, const char* program) {
    if (const int status = start_harness(argc, argv, program, GPUSHIM_TEST_OPENBLAS_PATH,
                                         GPUSHIM_TEST_OPENBLAS64_PATH);
        status != 0)
        return status;
    std::printf("%s: CPU symbols for the 64_ names: %s\n", program,
                cpu_has_64bit_lapack() ? "found" : "none");
    return RUN_ALL_TESTS();
}

}  // namespace gpushim::test_harness::lapack
