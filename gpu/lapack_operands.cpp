#include "gpu/lapack_operands.h"

#include <algorithm>

namespace gpushim::gpu {
namespace {

Triangle triangle_of(char uplo) {
    return uplo == 'U' ? Triangle::upper : Triangle::lower;
}

class OperandList {
  public:
    explicit OperandList(const LapackOp& op)
        : element_(element_size(op.precision)),
          real_element_(is_complex(op.precision) ? element_ / 2 : element_) {}

    // A matrix of the operation's element type.
    void add(Slot slot, void* host, int64_t ld, int64_t rows, int64_t cols, bool upload,
             bool deliver, Triangle part = Triangle::all,
             FoundLimits limits = FoundLimits::nothing) {
        add_array(slot, host, ld, rows, cols, element_, upload, deliver, part, limits);
    }
    // A vector of real values (eigenvalues, singular values), delivered.
    void add_real_output(Slot slot, void* host, int64_t length,
                         FoundLimits limits = FoundLimits::nothing) {
        add_array(slot, host, length, length, 1, real_element_, false, true, Triangle::all,
                  limits);
    }
    void pivots(int64_t count, bool in, bool out) {
        result_.pivot_count = count;
        result_.pivots_in = in;
        result_.pivots_out = out;
    }
    void counts_found() { result_.counts_found = true; }
    // The array added last is one the device gives back as it was given: "read" in the
    // device interface (gpu/device_interface.h).
    void read_only_on_device() { result_.list[result_.count - 1].device_reads_only = true; }
    // The array added last receives the factors that a solve reads next (GESV's are seldom
    // read again: NumPy's solve discards them).
    void factors() { result_.list[result_.count - 1].factors = true; }
    LapackOperands result() const { return result_; }

  private:
    void add_array(Slot slot, void* host, int64_t ld, int64_t rows, int64_t cols,
                   std::size_t element, bool upload, bool deliver, Triangle part,
                   FoundLimits limits) {
        result_.list[result_.count++] = {
            slot,    Matrix{static_cast<const std::byte*>(host), ld, {rows, cols}, element},
            upload,  deliver,
            part,    limits};
    }

    std::size_t element_;
    std::size_t real_element_;
    LapackOperands result_;
};

void add_gesvd(const LapackOp& op, OperandList& operands) {
    const int64_t smaller = std::min(op.m, op.n);
    const bool overwrites_a = op.jobu == 'O' || op.jobvt == 'O';
    operands.add(Slot::a, op.a, op.lda, op.m, op.n, true, overwrites_a);
    operands.add_real_output(Slot::w, op.w, smaller);
    if (op.jobu == 'A' || op.jobu == 'S')
        operands.add(Slot::u, op.u, op.ldu, op.m, op.jobu == 'A' ? op.m : smaller, false, true);
    if (op.jobvt == 'A' || op.jobvt == 'S')
        operands.add(Slot::vt, op.vt, op.ldvt, op.jobvt == 'A' ? op.n : smaller, op.n, false, true);
}

void add_syevr(const LapackOp& op, OperandList& operands) {
    operands.add(Slot::a, op.a, op.lda, op.n, op.n, true, false);
    operands.add_real_output(Slot::w, op.w, op.n, FoundLimits::rows);
    // Room for every eigenvector the range may give: iu - il + 1 by index, else n.
    const int64_t most = op.range == 'I' ? op.iu - op.il + 1 : op.n;
    if (op.jobz == 'V')
        operands.add(Slot::u, op.u, op.ldu, op.n, most, false, true, Triangle::all,
                     FoundLimits::columns);
    operands.counts_found();
}

void add_geev(const LapackOp& op, OperandList& operands) {
    operands.add(Slot::a, op.a, op.lda, op.n, op.n, true, false);
    if (is_complex(op.precision)) {
        operands.add(Slot::w, op.w, op.n, op.n, 1, false, true);
    } else {
        operands.add_real_output(Slot::w, op.w, op.n);
        operands.add_real_output(Slot::wi, op.wi, op.n);
    }
    if (op.jobz == 'V') operands.add(Slot::u, op.u, op.ldu, op.n, op.n, false, true);
}

}  // namespace

LapackOperands lapack_operands(const LapackOp& op) {
    OperandList operands(op);
    const int64_t n = op.n;
    switch (op.kind) {
        case GPUSHIM_POTRF:
        case GPUSHIM_POTRI:
            operands.add(Slot::a, op.a, op.lda, n, n, true, true, triangle_of(op.uplo));
            break;
        case GPUSHIM_GETRF:
            operands.add(Slot::a, op.a, op.lda, op.m, n, true, true);
            if (op.m == n) operands.factors();  // GETRS and GETRI read square factors only
            operands.pivots(std::min(op.m, n), false, true);
            break;
        case GPUSHIM_SYTRF:
            operands.add(Slot::a, op.a, op.lda, n, n, true, true, triangle_of(op.uplo));
            operands.pivots(n, false, true);
            break;
        case GPUSHIM_SYTRI:
            operands.add(Slot::a, op.a, op.lda, n, n, true, true, triangle_of(op.uplo));
            operands.pivots(n, true, false);
            break;
        case GPUSHIM_SYTRS:
            operands.add(Slot::a, op.a, op.lda, n, n, true, false, triangle_of(op.uplo));
            operands.add(Slot::b, op.b, op.ldb, n, op.nrhs, true, true);
            operands.pivots(n, true, false);
            break;
        case GPUSHIM_SYSV:
            operands.add(Slot::a, op.a, op.lda, n, n, true, true, triangle_of(op.uplo));
            operands.add(Slot::b, op.b, op.ldb, n, op.nrhs, true, true);
            operands.pivots(n, false, true);
            break;
        case GPUSHIM_GETRS:
            operands.add(Slot::a, op.a, op.lda, n, n, true, false);
            operands.read_only_on_device();
            operands.add(Slot::b, op.b, op.ldb, n, op.nrhs, true, true);
            operands.pivots(n, true, false);
            break;
        case GPUSHIM_GESV:
            operands.add(Slot::a, op.a, op.lda, n, n, true, true);
            operands.add(Slot::b, op.b, op.ldb, n, op.nrhs, true, true);
            operands.pivots(n, false, true);
            break;
        case GPUSHIM_GETRI:
            operands.add(Slot::a, op.a, op.lda, n, n, true, true);
            operands.pivots(n, true, false);
            break;
        case GPUSHIM_POTRS:
        case GPUSHIM_TRTRS:
            operands.add(Slot::a, op.a, op.lda, n, n, true, false);
            operands.read_only_on_device();
            operands.add(Slot::b, op.b, op.ldb, n, op.nrhs, true, true);
            break;
        case GPUSHIM_POSV:
            operands.add(Slot::a, op.a, op.lda, n, n, true, true, triangle_of(op.uplo));
            operands.add(Slot::b, op.b, op.ldb, n, op.nrhs, true, true);
            break;
        case GPUSHIM_TRTRI: {
            const bool unit = op.diag == 'U';
            const Triangle part = op.uplo == 'U'
                                      ? (unit ? Triangle::strictly_upper : Triangle::upper)
                                      : (unit ? Triangle::strictly_lower : Triangle::lower);
            operands.add(Slot::a, op.a, op.lda, n, n, true, true, part);
            break;
        }
        case GPUSHIM_GEQRF:
            operands.add(Slot::a, op.a, op.lda, op.m, n, true, true);
            operands.factors();
            operands.add(Slot::tau, op.tau, std::min(op.m, n), std::min(op.m, n), 1, false, true);
            break;
        case GPUSHIM_ORGQR:
            operands.add(Slot::a, op.a, op.lda, op.m, n, true, true);
            operands.add(Slot::tau, op.tau, op.k, op.k, 1, true, false);
            break;
        case GPUSHIM_ORMQR:
            operands.add(Slot::a, op.a, op.lda, op.side == 'L' ? op.m : n, op.k, true, false);
            operands.read_only_on_device();  // the device interface's contract: a is read
            operands.add(Slot::tau, op.tau, op.k, op.k, 1, true, false);
            operands.add(Slot::b, op.b, op.ldb, op.m, n, true, true);
            break;
        case GPUSHIM_SYEVD:
            operands.add(Slot::a, op.a, op.lda, n, n, true, op.jobz == 'V');
            operands.add_real_output(Slot::w, op.w, n);
            break;
        case GPUSHIM_GESVD:
            add_gesvd(op, operands);
            break;
        case GPUSHIM_SYEVR:
            add_syevr(op, operands);
            break;
        case GPUSHIM_SYGVD:
            operands.add(Slot::a, op.a, op.lda, n, n, true, op.jobz == 'V');
            operands.add(Slot::b, op.b, op.ldb, n, n, true, true, triangle_of(op.uplo));
            operands.add_real_output(Slot::w, op.w, n);
            break;
        case GPUSHIM_GEEV:
            add_geev(op, operands);
            break;
        case GPUSHIM_GELS:
            operands.add(Slot::a, op.a, op.lda, op.m, n, true, true);
            operands.add(Slot::b, op.b, op.ldb, op.m, op.nrhs, true, true);
            break;
        case GPUSHIM_GELSD:
            operands.add(Slot::a, op.a, op.lda, op.m, n, true, false);
            operands.add(Slot::b, op.b, op.ldb, op.m, op.nrhs, true, true);
            operands.add_real_output(Slot::w, op.w, n);
            operands.counts_found();
            break;
    }
    return operands.result();
}

void set_device_array(gpushim_lapack_op& device_op, const LapackOperand& operand, void* device) {
    const int64_t ld = std::max<int64_t>(1, operand.host.extent.rows);
    switch (operand.slot) {
        case Slot::a:
            device_op.a = device;
            device_op.lda = ld;
            break;
        case Slot::b:
            device_op.b = device;
            device_op.ldb = ld;
            break;
        case Slot::tau:
            device_op.tau = device;
            break;
        case Slot::w:
            device_op.w = device;
            break;
        case Slot::wi:
            device_op.wi = device;
            break;
        case Slot::u:
            device_op.u = device;
            device_op.ldu = ld;
            break;
        case Slot::vt:
            device_op.vt = device;
            device_op.ldvt = ld;
            break;
    }
}

}  // namespace gpushim::gpu
