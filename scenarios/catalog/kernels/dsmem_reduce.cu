// Cluster reduction through distributed shared memory: each of the 4 CTAs of a cluster stages its
// 256-int row of the input in its own shared memory (x * (rank + 1)); a cluster barrier (arrive
// release, wait acquire) makes every CTA's writes visible to the peers; then rank r sums the
// four CTAs' elements [64 r, 64 r + 64) in rank order, reading the peers' copies with
// mapa.shared::cluster + ld.shared::cluster, and writes them to out[cluster]. A second cluster
// barrier keeps every CTA's shared memory alive until the peers have read it.
// From: CUDA C++ Programming Guide, thread block clusters and distributed shared memory
// (cluster.map_shared_rank, cluster.sync); PTX ISA 9.7.9.21 (mapa), 9.7.13.4 (barrier.cluster).
// Twin dsmem_no_cluster_sync (-DSKIP_CLUSTER_SYNC): a __syncthreads instead of the first cluster
// barrier, which orders nothing across CTAs.
#include "kernel_common.cuh"

constexpr int kCluster = 4;
constexpr int kRow = 256;
constexpr int kThreads = kRow / kCluster;  // 64: each thread owns 4 elements, sums one column slice

// in: [ctas, 256]; out: [clusters, 256].
extern "C" __global__ void __launch_bounds__(kThreads) dsmem_reduce(const int* in, int* out) {
    __shared__ int part[kRow];
    const uint32_t rank = kc::cluster_rank();
    const int cluster = blockIdx.x / kCluster;
    for (int i = threadIdx.x; i < kRow; i += kThreads)
        part[i] = in[blockIdx.x * kRow + i] * static_cast<int>(rank + 1);
#ifdef SKIP_CLUSTER_SYNC
    __syncthreads();
#else
    kc::cluster_sync();
#endif
    const int j = static_cast<int>(rank) * kThreads + threadIdx.x;
    const uint32_t local = kc::smem_addr(&part[j]);
    int sum = 0;
    for (uint32_t r = 0; r < kCluster; ++r) sum += kc::ld_cluster_b32(kc::map_rank(local, r));
    out[cluster * kRow + j] = sum;
    kc::cluster_sync();  // the peers' reads of part[] are done before any CTA exits
}
