#include "gpu/blas3_executor.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <optional>
#include <vector>

#include "dispatch/config.h"
#include "dispatch/log.h"
#include "gpu/backend.h"
#include "gpu/blas3_panels.h"
#include "gpu/device_memory_pool.h"
#include "gpu/queue_context.h"
#include "gpu/residency_cache.h"
#include "gpu/staging.h"

namespace gpushim::gpu {
namespace {

// A one-panel result (the rank-k/2k updates) is staged whole in pinned memory; beyond this
// such calls stay on the CPU.
constexpr std::size_t kMaxWholeResultBytes = std::size_t{4} << 30;

Matrix operand(const Blas3Op& op, Operand which) {
    const void* pointer = which == Operand::a ? op.a : which == Operand::b ? op.b : op.c;
    const int64_t ld = which == Operand::a ? op.lda : which == Operand::b ? op.ldb : op.ldc;
    return {static_cast<const std::byte*>(pointer), ld, operand_extent(op, which),
            element_size(op.precision)};
}

std::optional<ResidencyCache::Lease> lease(ResidencyCache& cache, const Matrix& m) {
    if (m.bytes() == 0) return std::nullopt;
    return cache.lease({m.host, m.ld, m.extent.rows, m.extent.cols, m.element}, m.bytes());
}

}  // namespace

Outcome execute_blas3(const Blas3Op& op, CpuBlas3 cpu, Transfers& transfers) {
    const gpushim_device_plugin* plugin = backend();
    if (plugin == nullptr) return Outcome::unavailable;

    const PanelAxis axis = panel_axis(op);
    const int64_t span = panel_span(op, axis);
    const int64_t width = panel_width(op, axis, config().panel_bytes);
    const int64_t panels = (span + width - 1) / width;
    const int queues = panels > 1 ? QueueContext::kQueues : 1;
    const auto panel_at = [&](int64_t p) {
        return panel_op(op, axis, p * width, std::min(width, span - p * width));
    };

    // The widest panel sizes the per-queue buffers.
    const Blas3Op widest = panel_at(0);
    const Operand output = output_operand(op);
    const bool uses_b = operand_extent(op, Operand::b).cols > 0;
    const bool uploads_c = output == Operand::c && reads_output(op);
    const std::size_t output_bytes = operand(widest, output).bytes();
    if (axis == PanelAxis::whole && output_bytes > kMaxWholeResultBytes)
        return Outcome::unavailable;

    QueueContext* context = thread_queue_context(*plugin);
    if (context == nullptr) return Outcome::unavailable;
    for (int q = 0; q < queues; ++q) {
        if (!context->reserve_result(*plugin, q, output_bytes)) {
            report_failure(*plugin, "pinned allocation", -1);
            return Outcome::failed;
        }
    }

    DeviceMemoryPool& pool = device_pool(*plugin);
    const Matrix a = operand(op, Operand::a);
    const std::size_t b_bytes = uses_b ? operand(widest, Operand::b).bytes() : 0;
    const std::size_t c_bytes = output == Operand::c ? operand(widest, Operand::c).bytes() : 0;
    const std::size_t second_queue = queues > 1 ? 1 : 0;

    // The inputs the call only reads may be on the device from earlier calls: A, and B
    // panel by panel unless B is the output. Every panel is asked for (so that the cache
    // sees them all), and B is leased only if all of them are. Leases given back before
    // anything was uploaded keep their entries as they were.
    std::optional<ResidencyCache::Lease> a_lease;
    std::vector<ResidencyCache::Lease> b_leases;
    const auto give_back_b = [&b_leases] {
        for (ResidencyCache::Lease& panel : b_leases) panel.keep();
        b_leases.clear();
    };
    if (ResidencyCache* cache = residency_cache(*plugin); cache != nullptr) {
        a_lease = lease(*cache, a);
        const bool b_fits = operand(op, Operand::b).bytes() <= cache->capacity();
        bool every_panel = true;
        for (int64_t p = 0; b_fits && uses_b && output != Operand::b && p < panels; ++p) {
            auto panel = lease(*cache, operand(panel_at(p), Operand::b));
            every_panel = every_panel && panel.has_value();
            if (panel.has_value()) b_leases.push_back(std::move(*panel));
        }
        if (!every_panel) give_back_b();
    }
    // a, then b and c of each queue; an operand with a lease needs none.
    std::optional<DeviceBuffers<5>> buffers;
    const auto allocate_buffers = [&] {
        const std::size_t own_a = a_lease ? 0 : a.bytes();
        const std::size_t own_b = b_leases.empty() ? b_bytes : 0;
        const std::size_t sizes[5] = {own_a, own_b, c_bytes, second_queue * own_b,
                                      second_queue * c_bytes};
        buffers.emplace(pool, sizes);
    };
    allocate_buffers();
    if (!buffers->ok() && (a_lease || !b_leases.empty())) {
        // The leases may hold what the call needs: without them, the pool's shortage hook
        // can free their memory, and the call needs only two panels of B.
        buffers.reset();
        if (a_lease) a_lease->keep();
        a_lease.reset();
        give_back_b();
        allocate_buffers();
    }
    if (!buffers->ok()) {
        log::write(log::Level::info, "%.1f MB does not fit in device memory; computing on the CPU",
                   static_cast<double>(a.bytes() + queues * (b_bytes + c_bytes)) * 1e-6);
        return Outcome::unavailable;
    }
    void* const device_a = a_lease ? a_lease->device() : buffers->part(0);
    const auto device_b = [&](int64_t p) {
        return b_leases.empty() ? buffers->part(1 + 2 * static_cast<std::size_t>(p % queues))
                                : b_leases[static_cast<std::size_t>(p)].device();
    };
    const auto device_c = [&](int q) { return buffers->part(2 + 2 * static_cast<std::size_t>(q)); };

    Staging staging(*plugin, *context, transfers);
    int64_t delivered = 0;  // panels [0, delivered) are in the caller's memory
    const auto deliver_panel = [&](int64_t p) {
        const Blas3Op panel = panel_at(p);
        const Triangle part = !writes_triangle_only(panel) ? Triangle::all
                              : panel.uplo == 'U'          ? Triangle::upper
                                                           : Triangle::lower;
        deliver(static_cast<const std::byte*>(context->result[p % queues]), operand(panel, output),
                part);
        delivered = p + 1;
    };

    const char* step = "upload";
    int status = staging.upload(device_a, a, 0, a_lease ? &a_lease->prints() : nullptr);
    if (status == 0 && queues > 1)
        status = plugin->event_record(context->shared_ready, context->queue[0]);
    for (int64_t p = 0; status == 0 && p < panels; ++p) {
        const int q = static_cast<int>(p % queues);
        if (p >= queues) {  // queue q still holds panel p - queues: deliver it first
            step = "synchronisation";
            if ((status = plugin->event_synchronize(context->panel_done[q])) != 0) break;
            deliver_panel(p - queues);
        }
        if (p == 1 && (status = plugin->event_synchronize(context->shared_ready)) != 0) break;
        const Blas3Op panel = panel_at(p);
        step = "upload";
        ChunkPrints* b_prints = b_leases.empty() ? nullptr : &b_leases[p].prints();
        if (uses_b &&
            (status = staging.upload(device_b(p), operand(panel, Operand::b), q, b_prints)) != 0)
            break;
        if (uploads_c && (status = staging.upload(device_c(q), operand(panel, Operand::c), q)) != 0)
            break;
        Blas3Op device_op = panel;
        device_op.a = device_a;
        device_op.lda = std::max<int64_t>(1, a.extent.rows);
        device_op.b = device_b(p);
        device_op.ldb = std::max<int64_t>(1, operand_extent(panel, Operand::b).rows);
        device_op.c = device_c(q);
        device_op.ldc = std::max<int64_t>(1, operand_extent(panel, Operand::c).rows);
        step = "BLAS operation";
        if ((status = plugin->blas3(&device_op, context->queue[q])) != 0) break;
        step = "download";
        const void* device_out = output == Operand::b ? device_b(p) : device_c(q);
        if ((status = staging.download(device_out, operand(panel, output), q)) != 0) break;
        if ((status = plugin->event_record(context->panel_done[q], context->queue[q])) != 0) break;
    }
    if (status == 0) {
        step = "synchronisation";
        status = staging.synchronize_all();
    }
    if (status == 0) {
        for (int64_t p = delivered; p < panels; ++p) deliver_panel(p);
        if (a_lease) a_lease->keep();
        for (ResidencyCache::Lease& panel : b_leases) panel.keep();
        return Outcome::completed;
    }

    staging.synchronize_all();  // nothing may still write into buffers about to be reused
    report_failure(*plugin, step, status);
    if (delivered == 0) return Outcome::failed;
    for (int64_t p = delivered; p < panels; ++p) {
        if (!cpu(panel_at(p))) {
            // Unreachable for calls that came in through an entry point of the same integer
            // width; stopping beats returning a result that is partly stale.
            log::write(log::Level::error, "cannot compute a panel on the CPU; stopping");
            std::abort();
        }
    }
    return Outcome::recovered;
}

}  // namespace gpushim::gpu
