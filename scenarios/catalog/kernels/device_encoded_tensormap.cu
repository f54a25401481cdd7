// A tensor map encoded on the device: thread 0 copies the __grid_constant__ template map into
// shared memory and replaces its global address, box, global dims, stride and element strides
// (tensormap.replace.tile.*.shared::cta) from the guide's tensormap_params struct, so it
// describes the 8 x 256 u8 tensor `p.global_address` with a 4 x 128 box. The warp copies it to
// the CUtensorMap object in global memory with tensormap.cp_fenceproxy (copy + release, gpu
// scope); thread 0 acquires it (fence.proxy.tensormap::generic.acquire.gpu on its 128 bytes)
// and loads box (0, 0) through it; the warp copies the box to rows 0-3 of out.
// Then the map is changed again, in place in global memory: thread 0 points it at `second`
// (tensormap.replace ... .global), releases the change (fence.proxy.tensormap::generic.release),
// acquires it, and loads box (128, 4) of `second` into rows 4-7 of out.
// From: CUDA C++ Programming Guide 4.11.2.2.1-3 (encode_tensor_map, tensormap_params,
// consume_tensor_map, "a pointer to the existing tensor map to modify"); PTX ISA 9.7.9.28-29,
// 9.7.13.4. Compare scenarios/catalog/guide/device_encoded_tensormap.yaml.
// Twins: tensormap_replace_no_release (-DSKIP_RELEASE: the in-place change is used without the
// writer's release); tensormap_no_acquire (-DSKIP_ACQUIRE: the first use without the acquire).
#include "kernel_common.cuh"

// The guide's parameter struct (128 bytes: offsets 0, 8, 12, 32, 72, 104).
struct tensormap_params {
    void* global_address;
    int rank;
    uint32_t box_dim[5];
    uint64_t global_dim[5];
    size_t global_stride[4];
    uint32_t element_stride[5];
};

__device__ inline void load_box(const CUtensorMap* map, uint8_t (*dst)[128], uint64_t* bar, int x, int y) {
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, bar, 4 * 128);
    const int32_t coords[2] = {x, y};
    ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, dst, map, coords, bar);
}

// Launch with one warp. gmap: a 128-byte, 64-byte aligned CUtensorMap object in global memory.
extern "C" __global__ void __launch_bounds__(32)
    device_encoded_tensormap(const __grid_constant__ CUtensorMap template_map, const tensormap_params p,
                             CUtensorMap* gmap, const uint8_t* second, uint8_t* out) {
    __shared__ alignas(128) CUtensorMap smem_tmap;
    __shared__ alignas(128) uint8_t smem_buf[4][128];
    __shared__ uint64_t bar;
    const int lane = threadIdx.x;
    if (lane == 0) {
        smem_tmap = template_map;  // stage the template
        const auto sh = ptx::space_shared;
        ptx::tensormap_replace_global_address(sh, &smem_tmap, p.global_address);
        // This template already has rank 2 (the guide's if-chains over p.rank, for a rank-2 map).
        ptx::tensormap_replace_box_dim(sh, &smem_tmap, ptx::n32_t<0>{}, p.box_dim[0]);
        ptx::tensormap_replace_box_dim(sh, &smem_tmap, ptx::n32_t<1>{}, p.box_dim[1]);
        ptx::tensormap_replace_global_dim(sh, &smem_tmap, ptx::n32_t<0>{}, static_cast<uint32_t>(p.global_dim[0]));
        ptx::tensormap_replace_global_dim(sh, &smem_tmap, ptx::n32_t<1>{}, static_cast<uint32_t>(p.global_dim[1]));
        ptx::tensormap_replace_global_stride(sh, &smem_tmap, ptx::n32_t<0>{}, static_cast<uint64_t>(p.global_stride[0]));
        ptx::tensormap_replace_element_size(sh, &smem_tmap, ptx::n32_t<0>{}, p.element_stride[0]);
        ptx::tensormap_replace_element_size(sh, &smem_tmap, ptx::n32_t<1>{}, p.element_stride[1]);
        ptx::mbarrier_init(&bar, 1);
    }
    __syncwarp();  // the staged map (and the barrier) are visible to the whole warp
    // Copy to global and release to the tensormap proxy, the whole warp (.sync.aligned).
    ptx::tensormap_cp_fenceproxy(ptx::sem_release, ptx::scope_gpu, gmap, &smem_tmap, ptx::n32_t<128>{});

    if (lane == 0) {
#ifndef SKIP_ACQUIRE
        ptx::fence_proxy_tensormap_generic(ptx::sem_acquire, ptx::scope_gpu, gmap, ptx::n32_t<128>{});
#endif
        load_box(gmap, smem_buf, &bar, 0, 0);
    }
    kc::wait_parity(&bar, 0);
    reinterpret_cast<uint4*>(out)[lane] = reinterpret_cast<const uint4*>(smem_buf)[lane];  // 32 x 16 bytes
    __syncwarp();  // every lane's reads of smem_buf happen before the reload below

    if (lane == 0) {
        // The first load has completed (the wait above), so the map may change under nobody.
        ptx::tensormap_replace_global_address(ptx::space_global, gmap, second);
#ifndef SKIP_RELEASE
        ptx::fence_proxy_tensormap_generic(ptx::sem_release, ptx::scope_gpu);
#endif
        ptx::fence_proxy_tensormap_generic(ptx::sem_acquire, ptx::scope_gpu, gmap, ptx::n32_t<128>{});
        ptx::fence_proxy_async(ptx::space_shared);  // the warp's generic reads, then the TMA overwrite
        load_box(gmap, smem_buf, &bar, 128, 4);
    }
    kc::wait_parity(&bar, 1);
    reinterpret_cast<uint4*>(out)[32 + lane] = reinterpret_cast<const uint4*>(smem_buf)[lane];
}
