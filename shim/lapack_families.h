// What the entry point of each LAPACK family (lapack_signatures.h) does: describe the call,
// and hand the router the forwarding call, the workspace check and what to set after the
// device computed the call (INFO = 0, and WORK(1), IWORK(1), RWORK(1) as LAPACK sets them).
//
// Workspace: a call is offloaded only when every workspace it passes is at least what the
// CPU library answers to a workspace query (lwork = -1), which it is asked for then. A
// query itself (-1 is below any answer), or a smaller valid workspace, or an invalid one,
// leaves the call to the CPU library, which answers it as it always does.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <type_traits>

#include "dispatch/router.h"
#include "fallback/symbol_resolver.h"
#include "shim/blas3_op_builders.h"
#include "shim/lapack_signatures.h"

namespace gpushim::shim {

// A call on the N x N matrix A. The device interface has no const: an input is given as it
// is, and the device writes only the routine's outputs.
template <class T>
LapackOp square_op(gpushim_lapack_kind kind, int64_t n, const T* a, int64_t lda) {
    LapackOp op{};
    op.kind = kind;
    op.precision = precision_of<T>();
    op.n = n;
    op.a = const_cast<T*>(a);
    op.lda = lda;
    return op;
}

// A call on the M x N matrix A.
template <class T>
LapackOp general_op(gpushim_lapack_kind kind, int64_t m, int64_t n, const T* a, int64_t lda) {
    LapackOp op = square_op(kind, n, a, lda);
    op.m = m;
    return op;
}

template <class Int>
void set_pivots(LapackOp& op, const Int* ipiv) {
    op.host_pivots = const_cast<Int*>(ipiv);
    op.pivot_bytes = sizeof(Int);
}

// The solvers' B, of NRHS columns.
template <class T>
void set_rhs(LapackOp& op, int64_t nrhs, T* b, int64_t ldb) {
    op.nrhs = nrhs;
    op.b = b;
    op.ldb = ldb;
}

// LAPACK answers a query in WORK(1) (or RWORK(1)) as a floating-point count.
template <class T>
double workspace_count(const T& answer) {
    if constexpr (std::is_floating_point_v<T>) {
        return static_cast<double>(answer);
    } else {
        return static_cast<double>(answer.real());
    }
}

template <class Int, class T>
bool at_least(const Int* given, const T& wanted) {
    return static_cast<double>(*given) >= workspace_count(wanted);
}

constexpr auto kNoWorkspace = [] { return true; };

// The entry of a family without workspace: INFO = 0 is all there is to set.
template <class Cpu>
void route_without_workspace(const LapackOp& op, const LapackRoutine& routine, Cpu&& cpu_call,
                             auto* info) {
    route(op, routine, cpu_call, kNoWorkspace, [info] { *info = 0; });
}

// The arguments in which a call and its workspace query differ: the workspaces, their sizes
// and INFO, and what SYEVR and GELSD count (M, RANK; op.found), which a query must not write
// over the caller's. A routine passes on those it has.
template <class T, class Int>
struct WorkspaceArgs {
    T* work;
    const Int* lwork;
    RealPart<T>* rwork = nullptr;
    const Int* lrwork = nullptr;
    Int* iwork = nullptr;
    const Int* liwork = nullptr;
    Int* info;
    Int* found = nullptr;
};

// What the CPU library answers to a workspace query: WORK(1), and where the routine has
// them RWORK(1) and IWORK(1).
template <class T, class Int>
struct WorkspaceAnswers {
    T work{};
    RealPart<T> reals{};
    Int integers = 0;
};

// The entry of a family with workspaces. `call(args)` calls the CPU library with the
// caller's arguments but `args`: the caller's own forward the call, a query's (every size
// -1) get the answers; `fits(answers)` compares the caller's sizes with them;
// `store(answers)` writes them where LAPACK does after an offloaded call.
template <class T, class Int, class Call, class Fits, class Store>
void route_with_workspace(const LapackOp& op, const LapackRoutine& routine,
                          const WorkspaceArgs<T, Int>& caller, Call&& call, Fits&& fits,
                          Store&& store) {
    // A workspace query (any of the sizes -1) is the CPU library's to answer, once.
    const auto asks = [](const Int* size) { return size != nullptr && *size == -1; };
    if (asks(caller.lwork) || asks(caller.lrwork) || asks(caller.liwork)) {
        forward_to_cpu(op, routine.name, CpuReason::workspace_query, [&] { call(caller); });
        return;
    }
    WorkspaceAnswers<T, Int> answers;
    const auto workspace_suffices = [&] {
        const Int minus_one = -1;
        Int query_info = 0;
        Int query_found = 0;
        call(WorkspaceArgs<T, Int>{&answers.work, &minus_one, &answers.reals, &minus_one,
                                   &answers.integers, &minus_one, &query_info, &query_found});
        return query_info == 0 && fits(answers);
    };
    route(
        op, routine, [&] { call(caller); }, workspace_suffices,
        [&] {
            store(answers);
            *caller.info = 0;
        });
}

// Most families have one workspace, WORK (an RWORK or IWORK of fixed size passes as the
// caller's); `stored(answer)` is what the routine leaves in WORK(1) on exit.
template <class T, class Int, class Call, class Stored = std::identity>
void route_with_work(const LapackOp& op, const LapackRoutine& routine, T* work, const Int* lwork,
                     Int* info, Call&& call, Stored&& stored = {}) {
    route_with_workspace(
        op, routine, WorkspaceArgs<T, Int>{.work = work, .lwork = lwork, .info = info}, call,
        [&](const auto& answers) { return at_least(lwork, answers.work); },
        [&](const auto& answers) { work[0] = stored(answers.work); });
}

// Whether a routine takes the sizes of its IWORK and RWORK, which the caller's must then reach
// too. GELSD takes none (its query answers their minimum).
enum class ExtraSizes { taken, none };

constexpr auto kNothingElse = [](auto& /*answers*/) {};

// The families with IWORK besides WORK, and RWORK where complex (as LAPACK's complex routines
// have it). An offloaded call stores the count op.found points to, then lets `after(answers)`
// store what else the routine leaves and turn the query's answers into what the routine
// leaves in WORK(1), RWORK(1) and IWORK(1), then stores those.
template <class T, class Int, class Call, class After = decltype(kNothingElse)>
void route_with_workspaces(const LapackOp& op, const LapackRoutine& routine,
                           const WorkspaceArgs<T, Int>& caller, ExtraSizes sizes, Call&& call,
                           After after = {}) {
    constexpr bool with_rwork = !std::is_floating_point_v<T>;
    route_with_workspace(
        op, routine, caller, call,
        [&](const auto& answers) {
            return at_least(caller.lwork, answers.work) &&
                   (sizes == ExtraSizes::none ||
                    (*caller.liwork >= answers.integers &&
                     (!with_rwork || at_least(caller.lrwork, answers.reals))));
        },
        [&](const auto& answers) {
            if (op.found != nullptr) *caller.found = static_cast<Int>(*op.found);
            WorkspaceAnswers<T, Int> left = answers;
            after(left);
            caller.work[0] = left.work;
            caller.iwork[0] = left.integers;
            if constexpr (with_rwork) caller.rwork[0] = left.reals;
        });
}

// GEQRF, ORGQR and GETRI leave in WORK(1) the workspace they used: N * NB, what their query
// answers (so NB = answer / N), on their blocked path; N on the unblocked one, which they
// take when K <= NB or, for the QR routines, K <= NX (128 in reference LAPACK's ILAENV).
template <class T>
auto used_workspace(int64_t n, int64_t k, int64_t crossover) {
    return [=](const T& answer) {
        const double nb = workspace_count(answer) / static_cast<double>(std::max<int64_t>(1, n));
        const bool blocked = nb >= 2.0 && nb < static_cast<double>(k) && k > crossover;
        return blocked ? answer : T(static_cast<RealPart<T>>(std::max<int64_t>(1, n)));
    };
}
constexpr int64_t kQrCrossover = 128;

template <class T, class Int, class Cpu>
void lapack_uplo_square(gpushim_lapack_kind kind, const LapackRoutine& routine, Cpu& cpu,
                        GPUSHIM_LAPACK_uplo_square_PARAMS(T, Int)) {
    LapackOp op = square_op(kind, *n, a, *lda);
    op.uplo = fortran_flag(uplo);
    route_without_workspace(
        op, routine, [&] { cpu.get()(GPUSHIM_LAPACK_uplo_square_ARGS); }, info);
}

template <class T, class Int, class Cpu>
void lapack_getrf(gpushim_lapack_kind kind, const LapackRoutine& routine, Cpu& cpu,
                  GPUSHIM_LAPACK_getrf_PARAMS(T, Int)) {
    LapackOp op = general_op(kind, *m, *n, a, *lda);
    set_pivots(op, ipiv);
    route_without_workspace(
        op, routine, [&] { cpu.get()(GPUSHIM_LAPACK_getrf_ARGS); }, info);
}

template <class T, class Int, class Cpu>
void lapack_getrs(gpushim_lapack_kind kind, const LapackRoutine& routine, Cpu& cpu,
                  GPUSHIM_LAPACK_getrs_PARAMS(T, Int)) {
    LapackOp op = square_op(kind, *n, a, *lda);
    op.trans = fortran_flag(trans);
    set_pivots(op, ipiv);
    set_rhs(op, *nrhs, b, *ldb);
    route_without_workspace(
        op, routine, [&] { cpu.get()(GPUSHIM_LAPACK_getrs_ARGS); }, info);
}

template <class T, class Int, class Cpu>
void lapack_gesv(gpushim_lapack_kind kind, const LapackRoutine& routine, Cpu& cpu,
                 GPUSHIM_LAPACK_gesv_PARAMS(T, Int)) {
    LapackOp op = square_op(kind, *n, a, *lda);
    set_pivots(op, ipiv);
    set_rhs(op, *nrhs, b, *ldb);
    route_without_workspace(
        op, routine, [&] { cpu.get()(GPUSHIM_LAPACK_gesv_ARGS); }, info);
}

template <class T, class Int, class Cpu>
void lapack_getri(gpushim_lapack_kind kind, const LapackRoutine& routine, Cpu& cpu,
                  GPUSHIM_LAPACK_getri_PARAMS(T, Int)) {
    LapackOp op = square_op(kind, *n, a, *lda);
    set_pivots(op, ipiv);
    route_with_work(
        op, routine, work, lwork, info,
        [&](const auto& ws) { cpu.get()(n, a, lda, ipiv, ws.work, ws.lwork, ws.info); },
        used_workspace<T>(*n, *n, 0));
}

// A call of the Bunch-Kaufman family (SYTRF, SYTRI, SYTRS, SYSV) on the uplo triangle of A.
template <class T, class Int>
LapackOp bunch_kaufman_op(gpushim_lapack_kind kind, const char* uplo, int64_t n, const T* a,
                          int64_t lda, const Int* ipiv) {
    LapackOp op = square_op(kind, n, a, lda);
    op.uplo = fortran_flag(uplo);
    set_pivots(op, ipiv);
    return op;
}

// SYTRF leaves in WORK(1) what its query answers (LWKOPT), blocked or not.
template <class T, class Int, class Cpu>
void lapack_sytrf(gpushim_lapack_kind kind, const LapackRoutine& routine, Cpu& cpu,
                  GPUSHIM_LAPACK_sytrf_PARAMS(T, Int)) {
    LapackOp op = bunch_kaufman_op(kind, uplo, *n, a, *lda, ipiv);
    route_with_work(op, routine, work, lwork, info, [&](const auto& ws) {
        cpu.get()(uplo, n, a, lda, ipiv, ws.work, ws.lwork, ws.info, uplo_len);
    });
}

// SYTRI's WORK (N elements, no LWORK) is scratch the device does not need.
template <class T, class Int, class Cpu>
void lapack_sytri(gpushim_lapack_kind kind, const LapackRoutine& routine, Cpu& cpu,
                  GPUSHIM_LAPACK_sytri_PARAMS(T, Int)) {
    LapackOp op = bunch_kaufman_op(kind, uplo, *n, a, *lda, ipiv);
    route_without_workspace(
        op, routine, [&] { cpu.get()(GPUSHIM_LAPACK_sytri_ARGS); }, info);
}

template <class T, class Int, class Cpu>
void lapack_sytrs(gpushim_lapack_kind kind, const LapackRoutine& routine, Cpu& cpu,
                  GPUSHIM_LAPACK_sytrs_PARAMS(T, Int)) {
    LapackOp op = bunch_kaufman_op(kind, uplo, *n, a, *lda, ipiv);
    set_rhs(op, *nrhs, b, *ldb);
    route_without_workspace(
        op, routine, [&] { cpu.get()(GPUSHIM_LAPACK_sytrs_ARGS); }, info);
}

// SYSV's workspace is SYTRF's: WORK(1) its query's answer (LWKOPT) on exit.
template <class T, class Int, class Cpu>
void lapack_sysv(gpushim_lapack_kind kind, const LapackRoutine& routine, Cpu& cpu,
                 GPUSHIM_LAPACK_sysv_PARAMS(T, Int)) {
    LapackOp op = bunch_kaufman_op(kind, uplo, *n, a, *lda, ipiv);
    set_rhs(op, *nrhs, b, *ldb);
    route_with_work(op, routine, work, lwork, info, [&](const auto& ws) {
        cpu.get()(uplo, n, nrhs, a, lda, ipiv, b, ldb, ws.work, ws.lwork, ws.info, uplo_len);
    });
}

template <class T, class Int, class Cpu>
void lapack_uplo_solve(gpushim_lapack_kind kind, const LapackRoutine& routine, Cpu& cpu,
                       GPUSHIM_LAPACK_uplo_solve_PARAMS(T, Int)) {
    LapackOp op = square_op(kind, *n, a, *lda);
    op.uplo = fortran_flag(uplo);
    set_rhs(op, *nrhs, b, *ldb);
    route_without_workspace(
        op, routine, [&] { cpu.get()(GPUSHIM_LAPACK_uplo_solve_ARGS); }, info);
}

// OpenBLAS's own TRTRS rejects a lower-case UPLO or DIAG (INFO = -1, -3) where reference
// LAPACK accepts it: such a call is left to the CPU library, whichever it is, by a flag no
// routine accepts.
inline char upper_case_flag(const char* flag) {
    return *flag >= 'a' && *flag <= 'z' ? '?' : *flag;
}

template <class T, class Int, class Cpu>
void lapack_trtrs(gpushim_lapack_kind kind, const LapackRoutine& routine, Cpu& cpu,
                  GPUSHIM_LAPACK_trtrs_PARAMS(T, Int)) {
    LapackOp op = square_op(kind, *n, a, *lda);
    op.uplo = upper_case_flag(uplo);
    op.trans = fortran_flag(trans);
    op.diag = upper_case_flag(diag);
    set_rhs(op, *nrhs, b, *ldb);
    route_without_workspace(
        op, routine, [&] { cpu.get()(GPUSHIM_LAPACK_trtrs_ARGS); }, info);
}

template <class T, class Int, class Cpu>
void lapack_trtri(gpushim_lapack_kind kind, const LapackRoutine& routine, Cpu& cpu,
                  GPUSHIM_LAPACK_trtri_PARAMS(T, Int)) {
    LapackOp op = square_op(kind, *n, a, *lda);
    op.uplo = fortran_flag(uplo);
    op.diag = fortran_flag(diag);
    route_without_workspace(
        op, routine, [&] { cpu.get()(GPUSHIM_LAPACK_trtri_ARGS); }, info);
}

template <class T, class Int, class Cpu>
void lapack_geqrf(gpushim_lapack_kind kind, const LapackRoutine& routine, Cpu& cpu,
                  GPUSHIM_LAPACK_geqrf_PARAMS(T, Int)) {
    LapackOp op = general_op(kind, *m, *n, a, *lda);
    op.tau = tau;
    route_with_work(
        op, routine, work, lwork, info,
        [&](const auto& ws) { cpu.get()(m, n, a, lda, tau, ws.work, ws.lwork, ws.info); },
        used_workspace<T>(*n, std::min<int64_t>(*m, *n), kQrCrossover));
}

template <class T, class Int, class Cpu>
void lapack_orgqr(gpushim_lapack_kind kind, const LapackRoutine& routine, Cpu& cpu,
                  GPUSHIM_LAPACK_orgqr_PARAMS(T, Int)) {
    LapackOp op = general_op(kind, *m, *n, a, *lda);
    op.k = *k;
    op.tau = const_cast<T*>(tau);
    route_with_work(
        op, routine, work, lwork, info,
        [&](const auto& ws) { cpu.get()(m, n, k, a, lda, tau, ws.work, ws.lwork, ws.info); },
        used_workspace<T>(*n, *k, kQrCrossover));
}

template <class T, class Int, class Cpu>
void lapack_ormqr(gpushim_lapack_kind kind, const LapackRoutine& routine, Cpu& cpu,
                  GPUSHIM_LAPACK_ormqr_PARAMS(T, Int)) {
    LapackOp op = general_op(kind, *m, *n, a, *lda);
    op.side = fortran_flag(side);
    op.trans = fortran_flag(trans);
    op.k = *k;
    op.tau = const_cast<T*>(tau);
    op.b = c;
    op.ldb = *ldc;
    route_with_work(op, routine, work, lwork, info, [&](const auto& ws) {
        cpu.get()(side, trans, m, n, k, a, lda, tau, c, ldc, ws.work, ws.lwork, ws.info, side_len,
                  trans_len);
    });
}

template <class T>
LapackOp eigen_op(gpushim_lapack_kind kind, const char* jobz, const char* uplo, int64_t n, T* a,
                  int64_t lda, void* w) {
    LapackOp op = square_op(kind, n, a, lda);
    op.jobz = fortran_flag(jobz);
    op.uplo = fortran_flag(uplo);
    op.w = w;
    return op;
}

template <class T, class Int, class Cpu>
void lapack_syevd(gpushim_lapack_kind kind, const LapackRoutine& routine, Cpu& cpu,
                  GPUSHIM_LAPACK_syevd_PARAMS(T, Int)) {
    const LapackOp op = eigen_op(kind, jobz, uplo, *n, a, *lda, w);
    route_with_workspaces(
        op, routine,
        WorkspaceArgs<T, Int>{
            .work = work, .lwork = lwork, .iwork = iwork, .liwork = liwork, .info = info},
        ExtraSizes::taken, [&](const auto& ws) {
            cpu.get()(jobz, uplo, n, a, lda, w, ws.work, ws.lwork, ws.iwork, ws.liwork, ws.info,
                      jobz_len, uplo_len);
        });
}

template <class T, class Int, class Cpu>
void lapack_heevd(gpushim_lapack_kind kind, const LapackRoutine& routine, Cpu& cpu,
                  GPUSHIM_LAPACK_heevd_PARAMS(T, Int)) {
    const LapackOp op = eigen_op(kind, jobz, uplo, *n, a, *lda, w);
    route_with_workspaces(
        op, routine, WorkspaceArgs<T, Int>{work, lwork, rwork, lrwork, iwork, liwork, info},
        ExtraSizes::taken, [&](const auto& ws) {
            cpu.get()(jobz, uplo, n, a, lda, w, ws.work, ws.lwork, ws.rwork, ws.lrwork, ws.iwork,
                      ws.liwork, ws.info, jobz_len, uplo_len);
        });
}

// SYEV and HEEV: the device computes them as SYEVD (same eigenvalues; eigenvectors within
// what LAPACK leaves free). HEEV's RWORK has a fixed size and no query.
template <class T, class Int, class Cpu>
void lapack_syev(gpushim_lapack_kind kind, const LapackRoutine& routine, Cpu& cpu,
                 GPUSHIM_LAPACK_syev_PARAMS(T, Int)) {
    route_with_work(eigen_op(kind, jobz, uplo, *n, a, *lda, w), routine, work, lwork, info,
                    [&](const auto& ws) {
                        cpu.get()(jobz, uplo, n, a, lda, w, ws.work, ws.lwork, ws.info, jobz_len,
                                  uplo_len);
                    });
}

template <class T, class Int, class Cpu>
void lapack_heev(gpushim_lapack_kind kind, const LapackRoutine& routine, Cpu& cpu,
                 GPUSHIM_LAPACK_heev_PARAMS(T, Int)) {
    route_with_work(eigen_op(kind, jobz, uplo, *n, a, *lda, w), routine, work, lwork, info,
                    [&](const auto& ws) {
                        cpu.get()(jobz, uplo, n, a, lda, w, ws.work, ws.lwork, rwork, ws.info,
                                  jobz_len, uplo_len);
                    });
}

template <class T>
LapackOp svd_op(gpushim_lapack_kind kind, char jobu, char jobvt, int64_t m, int64_t n, T* a,
                int64_t lda, void* s, T* u, int64_t ldu, T* vt, int64_t ldvt) {
    LapackOp op = general_op(kind, m, n, a, lda);
    op.jobu = jobu;
    op.jobvt = jobvt;
    op.w = s;
    op.u = u;
    op.ldu = ldu;
    op.vt = vt;
    op.ldvt = ldvt;
    return op;
}

template <class T, class Int, class Cpu>
void lapack_gesvd(gpushim_lapack_kind kind, const LapackRoutine& routine, Cpu& cpu,
                  GPUSHIM_LAPACK_gesvd_PARAMS(T, Int)) {
    const LapackOp op = svd_op(kind, fortran_flag(jobu), fortran_flag(jobvt), *m, *n, a, *lda, s, u,
                               *ldu, vt, *ldvt);
    route_with_work(op, routine, work, lwork, info, [&](const auto& ws) {
        cpu.get()(jobu, jobvt, m, n, a, lda, s, u, ldu, vt, ldvt, ws.work, ws.lwork, ws.info,
                  jobu_len, jobvt_len);
    });
}

template <class T, class Int, class Cpu>
void lapack_gesvd_complex(gpushim_lapack_kind kind, const LapackRoutine& routine, Cpu& cpu,
                          GPUSHIM_LAPACK_gesvd_complex_PARAMS(T, Int)) {
    const LapackOp op = svd_op(kind, fortran_flag(jobu), fortran_flag(jobvt), *m, *n, a, *lda, s, u,
                               *ldu, vt, *ldvt);
    route_with_work(op, routine, work, lwork, info, [&](const auto& ws) {
        cpu.get()(jobu, jobvt, m, n, a, lda, s, u, ldu, vt, ldvt, ws.work, ws.lwork, rwork, ws.info,
                  jobu_len, jobvt_len);
    });
}

// GESDD's JOBZ as GESVD's pair of jobs: 'O' overwrites A with U when m >= n (VT whole),
// with VT when m < n (U whole). Anything else maps to an invalid pair.
struct SvdJobs {
    char u;
    char vt;
};
inline SvdJobs gesdd_jobs(char jobz, bool tall) {
    switch (jobz) {
        case 'A':
        case 'S':
        case 'N':
            return {jobz, jobz};
        case 'O':
            return tall ? SvdJobs{'O', 'A'} : SvdJobs{'A', 'O'};
        default:
            return {'?', '?'};
    }
}

template <class T, class Int>
LapackOp gesdd_op(gpushim_lapack_kind kind, const char* jobz, const Int* m, const Int* n, T* a,
                  const Int* lda, void* s, T* u, const Int* ldu, T* vt, const Int* ldvt) {
    const SvdJobs jobs = gesdd_jobs(fortran_flag(jobz), *m >= *n);
    return svd_op(kind, jobs.u, jobs.vt, *m, *n, a, *lda, s, u, *ldu, vt, *ldvt);
}

template <class T, class Int, class Cpu>
void lapack_gesdd(gpushim_lapack_kind kind, const LapackRoutine& routine, Cpu& cpu,
                  GPUSHIM_LAPACK_gesdd_PARAMS(T, Int)) {
    const LapackOp op = gesdd_op(kind, jobz, m, n, a, lda, s, u, ldu, vt, ldvt);
    route_with_work(op, routine, work, lwork, info, [&](const auto& ws) {
        cpu.get()(jobz, m, n, a, lda, s, u, ldu, vt, ldvt, ws.work, ws.lwork, iwork, ws.info,
                  jobz_len);
    });
}

template <class T, class Int, class Cpu>
void lapack_gesdd_complex(gpushim_lapack_kind kind, const LapackRoutine& routine, Cpu& cpu,
                          GPUSHIM_LAPACK_gesdd_complex_PARAMS(T, Int)) {
    const LapackOp op = gesdd_op(kind, jobz, m, n, a, lda, s, u, ldu, vt, ldvt);
    route_with_work(op, routine, work, lwork, info, [&](const auto& ws) {
        cpu.get()(jobz, m, n, a, lda, s, u, ldu, vt, ldvt, ws.work, ws.lwork, rwork, iwork, ws.info,
                  jobz_len);
    });
}

// SYEVR's ISUPPZ: for the full spectrum (the only case LAPACK sets it), the first and last
// rows (1-based) where each eigenvector in Z is nonzero. LAPACK's own values describe the
// eigenvectors of its tridiagonal matrix, before the back-transformation, and are often
// narrower; a device computes none, so this is a documented deviation.
template <class T, class Int>
void store_support(const T* z, int64_t ldz, int64_t n, int64_t count, Int* isuppz) {
    for (int64_t j = 0; j < count; ++j) {
        const T* column = z + j * ldz;
        int64_t first = 0;
        while (first < n - 1 && column[first] == T{}) ++first;
        int64_t last = n - 1;
        while (last > first && column[last] == T{}) --last;
        isuppz[2 * j] = static_cast<Int>(first + 1);
        isuppz[2 * j + 1] = static_cast<Int>(last + 1);
    }
}

template <class T, class Int, class R>
LapackOp syevr_op(gpushim_lapack_kind kind, const char* jobz, const char* range, const char* uplo,
                  const Int* n, T* a, const Int* lda, const R* vl, const R* vu, const Int* il,
                  const Int* iu, void* w, T* z, const Int* ldz, int64_t* found) {
    LapackOp op = eigen_op(kind, jobz, uplo, *n, a, *lda, w);
    op.range = fortran_flag(range);
    // VL, VU, IL, IU are referenced only for their range (and may be anything otherwise).
    if (op.range == 'V') {
        op.vl = static_cast<double>(*vl);
        op.vu = static_cast<double>(*vu);
    }
    if (op.range == 'I') {
        op.il = *il;
        op.iu = *iu;
    }
    op.u = z;
    op.ldu = *ldz;
    op.found = found;
    return op;
}

// After an offloaded SYEVR/HEEVR: ISUPPZ for the full spectrum with vectors.
template <class T, class Int>
void store_syevr_support(const LapackOp& op, const T* z, Int* isuppz) {
    const bool full_spectrum = op.range == 'A' || (op.range == 'I' && op.il == 1 && op.iu == op.n);
    if (op.jobz == 'V' && full_spectrum) store_support(z, op.ldu, op.n, *op.found, isuppz);
}

template <class T, class Int, class Cpu>
void lapack_syevr(gpushim_lapack_kind kind, const LapackRoutine& routine, Cpu& cpu,
                  GPUSHIM_LAPACK_syevr_PARAMS(T, Int)) {
    int64_t found = 0;
    const LapackOp op =
        syevr_op(kind, jobz, range, uplo, n, a, lda, vl, vu, il, iu, w, z, ldz, &found);
    route_with_workspaces(
        op, routine,
        WorkspaceArgs<T, Int>{.work = work,
                              .lwork = lwork,
                              .iwork = iwork,
                              .liwork = liwork,
                              .info = info,
                              .found = m},
        ExtraSizes::taken,
        [&](const auto& ws) {
            cpu.get()(jobz, range, uplo, n, a, lda, vl, vu, il, iu, abstol, ws.found, w, z, ldz,
                      isuppz, ws.work, ws.lwork, ws.iwork, ws.liwork, ws.info, jobz_len, range_len,
                      uplo_len);
        },
        [&](auto&) { store_syevr_support(op, z, isuppz); });
}

template <class T, class Int, class Cpu>
void lapack_heevr(gpushim_lapack_kind kind, const LapackRoutine& routine, Cpu& cpu,
                  GPUSHIM_LAPACK_heevr_PARAMS(T, Int)) {
    int64_t found = 0;
    const LapackOp op =
        syevr_op(kind, jobz, range, uplo, n, a, lda, vl, vu, il, iu, w, z, ldz, &found);
    route_with_workspaces(
        op, routine, WorkspaceArgs<T, Int>{work, lwork, rwork, lrwork, iwork, liwork, info, m},
        ExtraSizes::taken,
        [&](const auto& ws) {
            cpu.get()(jobz, range, uplo, n, a, lda, vl, vu, il, iu, abstol, ws.found, w, z, ldz,
                      isuppz, ws.work, ws.lwork, ws.rwork, ws.lrwork, ws.iwork, ws.liwork, ws.info,
                      jobz_len, range_len, uplo_len);
        },
        [&](auto&) { store_syevr_support(op, z, isuppz); });
}

template <class T, class Int>
LapackOp sygvd_op(gpushim_lapack_kind kind, const Int* itype, const char* jobz, const char* uplo,
                  const Int* n, T* a, const Int* lda, T* b, const Int* ldb, void* w) {
    LapackOp op = eigen_op(kind, jobz, uplo, *n, a, *lda, w);
    op.itype = *itype;
    op.b = b;
    op.ldb = *ldb;
    return op;
}

// SYGVD and HEGVD leave in WORK(1) (RWORK(1), IWORK(1)) the larger of their own query's
// answer and what the SYEVD (HEEVD) they call leaves there, its query's answer, which counts
// SYTRD's block size and exceeds theirs for small N. That routine is the CPU library's
// function of the same scheme: `symbol` with the routine's name in place of `generalized`'s.
template <class Function>
Function* inner_eigensolver(const char* symbol, std::string_view generalized,
                            std::string_view inner) {
    // Resolved once per name: the search is that of every CPU function's first call.
    static std::mutex mutex;
    static std::map<std::string, void*, std::less<>> resolved;
    const std::lock_guard lock(mutex);
    auto found = resolved.find(std::string_view(symbol));
    if (found == resolved.end()) {
        std::string name(symbol);
        name.replace(name.find(generalized), generalized.size(), inner);
        found = resolved.emplace(symbol, fallback::resolve_cpu_symbol(name.c_str())).first;
    }
    return reinterpret_cast<Function*>(found->second);
}

// Raises `left` to the answers of the inner routine's workspace query, which
// `query(inner, minus_one, info)` makes with every size -1.
template <class T, class Int, class Query>
void raise_to_inner_query(WorkspaceAnswers<T, Int>& left, Query&& query) {
    const Int minus_one = -1;
    Int query_info = 0;
    WorkspaceAnswers<T, Int> inner;
    query(inner, &minus_one, &query_info);
    if (query_info != 0) return;
    if (workspace_count(inner.work) > workspace_count(left.work)) left.work = inner.work;
    left.reals = std::max(left.reals, inner.reals);
    left.integers = std::max(left.integers, inner.integers);
}

template <class T, class Int, class Cpu>
void lapack_sygvd(gpushim_lapack_kind kind, const LapackRoutine& routine, Cpu& cpu,
                  GPUSHIM_LAPACK_sygvd_PARAMS(T, Int)) {
    const LapackOp op = sygvd_op(kind, itype, jobz, uplo, n, a, lda, b, ldb, w);
    route_with_workspaces(
        op, routine,
        WorkspaceArgs<T, Int>{
            .work = work, .lwork = lwork, .iwork = iwork, .liwork = liwork, .info = info},
        ExtraSizes::taken,
        [&](const auto& ws) {
            cpu.get()(itype, jobz, uplo, n, a, lda, b, ldb, w, ws.work, ws.lwork, ws.iwork,
                      ws.liwork, ws.info, jobz_len, uplo_len);
        },
        [&](WorkspaceAnswers<T, Int>& left) {
            using Syevd = void(GPUSHIM_LAPACK_syevd_PARAMS(T, Int));
            raise_to_inner_query(left, [&](auto& inner, const Int* ask, Int* query_info) {
                inner_eigensolver<Syevd>(cpu.symbol(), "sygvd", "syevd")(
                    jobz, uplo, n, a, lda, w, &inner.work, ask, &inner.integers, ask, query_info,
                    jobz_len, uplo_len);
            });
        });
}

template <class T, class Int, class Cpu>
void lapack_hegvd(gpushim_lapack_kind kind, const LapackRoutine& routine, Cpu& cpu,
                  GPUSHIM_LAPACK_hegvd_PARAMS(T, Int)) {
    const LapackOp op = sygvd_op(kind, itype, jobz, uplo, n, a, lda, b, ldb, w);
    route_with_workspaces(
        op, routine, WorkspaceArgs<T, Int>{work, lwork, rwork, lrwork, iwork, liwork, info},
        ExtraSizes::taken,
        [&](const auto& ws) {
            cpu.get()(itype, jobz, uplo, n, a, lda, b, ldb, w, ws.work, ws.lwork, ws.rwork,
                      ws.lrwork, ws.iwork, ws.liwork, ws.info, jobz_len, uplo_len);
        },
        [&](WorkspaceAnswers<T, Int>& left) {
            using Heevd = void(GPUSHIM_LAPACK_heevd_PARAMS(T, Int));
            raise_to_inner_query(left, [&](auto& inner, const Int* ask, Int* query_info) {
                inner_eigensolver<Heevd>(cpu.symbol(), "hegvd", "heevd")(
                    jobz, uplo, n, a, lda, w, &inner.work, ask, &inner.reals, ask, &inner.integers,
                    ask, query_info, jobz_len, uplo_len);
            });
        });
}

// SYGV and HEGV: the device computes them as SYGVD (same eigenvalues; eigenvectors within
// what LAPACK leaves free). They leave their query's answer in WORK(1), at every order;
// HEGV's RWORK has a fixed size and no query.
template <class T, class Int, class Cpu>
void lapack_sygv(gpushim_lapack_kind kind, const LapackRoutine& routine, Cpu& cpu,
                 GPUSHIM_LAPACK_sygv_PARAMS(T, Int)) {
    route_with_work(sygvd_op(kind, itype, jobz, uplo, n, a, lda, b, ldb, w), routine, work, lwork,
                    info, [&](const auto& ws) {
                        cpu.get()(itype, jobz, uplo, n, a, lda, b, ldb, w, ws.work, ws.lwork,
                                  ws.info, jobz_len, uplo_len);
                    });
}

template <class T, class Int, class Cpu>
void lapack_hegv(gpushim_lapack_kind kind, const LapackRoutine& routine, Cpu& cpu,
                 GPUSHIM_LAPACK_hegv_PARAMS(T, Int)) {
    route_with_work(sygvd_op(kind, itype, jobz, uplo, n, a, lda, b, ldb, w), routine, work, lwork,
                    info, [&](const auto& ws) {
                        cpu.get()(itype, jobz, uplo, n, a, lda, b, ldb, w, ws.work, ws.lwork, rwork,
                                  ws.info, jobz_len, uplo_len);
                    });
}

template <class T, class Int>
LapackOp geev_op(gpushim_lapack_kind kind, const char* jobvl, const char* jobvr, const Int* n, T* a,
                 const Int* lda, void* w, void* wi, const Int* ldvl, T* vr, const Int* ldvr) {
    LapackOp op = square_op(kind, *n, a, *lda);
    op.jobvl = fortran_flag(jobvl);
    op.ldvl = *ldvl;
    op.jobz = fortran_flag(jobvr);
    op.w = w;
    op.wi = wi;
    op.u = vr;
    op.ldu = *ldvr;
    return op;
}

template <class T, class Int, class Cpu>
void lapack_geev(gpushim_lapack_kind kind, const LapackRoutine& routine, Cpu& cpu,
                 GPUSHIM_LAPACK_geev_PARAMS(T, Int)) {
    const LapackOp op = geev_op(kind, jobvl, jobvr, n, a, lda, wr, wi, ldvl, vr, ldvr);
    route_with_work(op, routine, work, lwork, info, [&](const auto& ws) {
        cpu.get()(jobvl, jobvr, n, a, lda, wr, wi, vl, ldvl, vr, ldvr, ws.work, ws.lwork, ws.info,
                  jobvl_len, jobvr_len);
    });
}

template <class T, class Int, class Cpu>
void lapack_geev_complex(gpushim_lapack_kind kind, const LapackRoutine& routine, Cpu& cpu,
                         GPUSHIM_LAPACK_geev_complex_PARAMS(T, Int)) {
    const LapackOp op = geev_op(kind, jobvl, jobvr, n, a, lda, w, nullptr, ldvl, vr, ldvr);
    route_with_work(op, routine, work, lwork, info, [&](const auto& ws) {
        cpu.get()(jobvl, jobvr, n, a, lda, w, vl, ldvl, vr, ldvr, ws.work, ws.lwork, rwork, ws.info,
                  jobvl_len, jobvr_len);
    });
}

template <class T, class Int, class Cpu>
void lapack_gels(gpushim_lapack_kind kind, const LapackRoutine& routine, Cpu& cpu,
                 GPUSHIM_LAPACK_gels_PARAMS(T, Int)) {
    LapackOp op = general_op(kind, *m, *n, a, *lda);
    op.trans = fortran_flag(trans);
    set_rhs(op, *nrhs, b, *ldb);
    route_with_work(op, routine, work, lwork, info, [&](const auto& ws) {
        cpu.get()(trans, m, n, nrhs, a, lda, b, ldb, ws.work, ws.lwork, ws.info, trans_len);
    });
}

template <class T, class Int, class R>
LapackOp gelsd_op(gpushim_lapack_kind kind, const Int* m, const Int* n, const Int* nrhs, T* a,
                  const Int* lda, T* b, const Int* ldb, void* s, const R* rcond, int64_t* rank) {
    LapackOp op = general_op(kind, *m, *n, a, *lda);
    set_rhs(op, *nrhs, b, *ldb);
    op.w = s;
    op.rcond = static_cast<double>(*rcond);
    op.found = rank;
    return op;
}

// GELSD answers its query in WORK(1), IWORK(1) (the minimum LIWORK) and, complex, RWORK(1)
// (the minimum LRWORK); an offloaded call stores the same answers, as LAPACK does on exit.
template <class T, class Int, class Cpu>
void lapack_gelsd(gpushim_lapack_kind kind, const LapackRoutine& routine, Cpu& cpu,
                  GPUSHIM_LAPACK_gelsd_PARAMS(T, Int)) {
    int64_t found = 0;
    route_with_workspaces(
        gelsd_op(kind, m, n, nrhs, a, lda, b, ldb, s, rcond, &found), routine,
        WorkspaceArgs<T, Int>{
            .work = work, .lwork = lwork, .iwork = iwork, .info = info, .found = rank},
        ExtraSizes::none, [&](const auto& ws) {
            cpu.get()(m, n, nrhs, a, lda, b, ldb, s, rcond, ws.found, ws.work, ws.lwork, ws.iwork,
                      ws.info);
        });
}

template <class T, class Int, class Cpu>
void lapack_gelsd_complex(gpushim_lapack_kind kind, const LapackRoutine& routine, Cpu& cpu,
                          GPUSHIM_LAPACK_gelsd_complex_PARAMS(T, Int)) {
    int64_t found = 0;
    route_with_workspaces(gelsd_op(kind, m, n, nrhs, a, lda, b, ldb, s, rcond, &found), routine,
                          WorkspaceArgs<T, Int>{.work = work,
                                                .lwork = lwork,
                                                .rwork = rwork,
                                                .iwork = iwork,
                                                .info = info,
                                                .found = rank},
                          ExtraSizes::none, [&](const auto& ws) {
                              cpu.get()(m, n, nrhs, a, lda, b, ldb, s, rcond, ws.found, ws.work,
                                        ws.lwork, ws.rwork, ws.iwork, ws.info);
                          });
}

}  // namespace gpushim::shim
