/* Region assembly on the GPU: every output pixel of every piece (a band of a
 * region) is taken from the slot holding its chunk, converted to the requested
 * pixel format, or painted with the background (outside the image, or a missing
 * chunk). Mirrors fv__blit / fv__fill_background of the CPU reader (slide.c). */
#include <stdint.h>
#include <cuda_runtime.h>

#include "cuda/io/read-gpu.h"
#include "cuda/cuda-kernels.h"
#include "fovea/slide.h"

static __device__ __forceinline__ void
fv__put_bg(uint8_t *dst, int n, int format)
{
    const uint8_t v = format == FV_PIXEL_RGB ? 255 : 0;
    for (int k = 0; k < n; k++)
        dst[k] = v;
}

__global__ void
fv_k_assemble(fv__gpu_assemble_args a)
{
    const fv__gpu_piece p = a.pieces[blockIdx.y];
    const int64_t n = (int64_t)p.rows * a.w;
    const int opix = a.out_c * a.out_isz;
    const int64_t plane = a.cw * a.ch;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)blockDim.x * gridDim.x) {
        const int64_t y = i / a.w, x = i - y * a.w;
        const int64_t X = p.lx + x, Y = p.ly + y;
        uint8_t *dst = a.out + p.out_off + i * opix;
        if (X < 0 || Y < 0 || X >= a.clip_w || Y >= a.clip_h) {
            fv__put_bg(dst, opix, a.format);
            continue;
        }
        const int64_t tx = X / a.cw - p.tx0, ty = Y / a.ch - p.ty0;
        int32_t slot = -1;
        if (tx >= 0 && ty >= 0 && tx < p.ntx && ty < p.nty)
            slot = a.cells[p.cell_off + ty * p.ntx + tx];
        if (slot < 0 || a.slot_layout[slot] == FV__SLOT_MISSING) {
            fv__put_bg(dst, opix, a.format);
            continue;
        }
        const int64_t sx = X - (X / a.cw) * a.cw, sy = Y - (Y / a.ch) * a.ch;
        const uint8_t *base = a.slots[slot];
        unsigned v[4] = { 0, 0, 0, 0 };
        if (a.slot_layout[slot] == FV__SLOT_PLANAR) {
            for (int k = 0; k < a.src_c && k < 4; k++)
                v[k] = base[k * plane + sy * a.cw + sx];
        } else {
            const uint8_t *sp = base + (sy * a.cw + sx) * a.src_c * a.src_isz;
            if (a.format == FV_PIXEL_NATIVE) { /* the file's samples, as they are */
                for (int k = 0; k < opix; k++)
                    dst[k] = sp[k];
                continue;
            }
            for (int k = 0; k < a.src_c && k < 4; k++)
                v[k] = a.src_isz == 2 ? (unsigned)(*(const uint16_t *)(sp + 2 * k)) : sp[k];
        }
        if (a.format == FV_PIXEL_NATIVE) { /* planar slots are 8-bit */
            for (int k = 0; k < a.out_c && k < 4; k++)
                dst[k] = (uint8_t)v[k];
            continue;
        }
        if (a.src_isz == 2)
            for (int k = 0; k < 4; k++)
                v[k] >>= 8;
        unsigned r = v[0], g = v[1], b = v[2], al = 255;
        if (a.src_c == 1)
            g = b = r;
        else if (a.src_c == 2) /* gray + alpha */
            al = v[1], g = b = r;
        else if (a.src_c >= 4)
            al = v[3];
        dst[0] = (uint8_t)r, dst[1] = (uint8_t)g, dst[2] = (uint8_t)b;
        if (a.out_c == 4)
            dst[3] = (uint8_t)al;
    }
}

extern "C" fv_status
fv__gpu_assemble(const fv__gpu_assemble_args *a, void *stream)
{
    if (a->npieces <= 0)
        return FV_OK;
    const int threads = 256;
    int64_t per = ((int64_t)a->max_rows * a->w + threads - 1) / threads;
    if (per < 1)
        per = 1;
    if (per > 4096)
        per = 4096;
    int done = 0;
    while (done < a->npieces) { /* gridDim.y is at most 65535 */
        int chunk = a->npieces - done < 65535 ? a->npieces - done : 65535;
        fv__gpu_assemble_args b = *a;
        b.pieces = a->pieces + done;
        b.npieces = chunk;
        dim3 grid((unsigned)per, (unsigned)chunk);
        fv_k_assemble<<<grid, threads, 0, (cudaStream_t)stream>>>(b);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess)
            return fv__cuda_error("assemble kernel launch", e);
        done += chunk;
    }
    return FV_OK;
}
