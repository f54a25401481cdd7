#pragma once
// A kernel's PTX decoded once per run for execution (model/kernel/decoder.cpp): one flat array
// of instructions over every function the entry reaches (calls are inlined at their sites,
// each callee's registers renamed), every operand a slot of the warp's register file. Slots
// hold registers, immediates and special registers alike, 32 lanes each, so an instruction
// reads every operand the same way. Branches carry their target and the point where a
// divergent warp reconverges (the branch's immediate post-dominator, model/kernel/simt_stack.h).
#include <cstdint>
#include <string>
#include <vector>

namespace tmasim::model::kernel {

// The operand type of an instruction (its last type modifier, or the one it names).
enum class Ty : uint8_t {
    none, pred,
    b8, b16, b32, b64, b128,
    u8, u16, u32, u64,
    s8, s16, s32, s64,
    f16, f16x2, bf16, bf16x2, f32, f64,
    e4m3, e5m2, e4m3x2, e5m2x2, tf32,
};
int ty_bits(Ty t);        // 1 for pred, 128 for b128
bool ty_signed(Ty t);     // s8..s64
bool ty_float(Ty t);      // f16..f64 (not the x2 packs)
Ty parse_ty(const std::string& s);  // ".u32" or "u32"; Ty::none when not a type

// What the warp does with an instruction. ALU and control opcodes run in the warp
// (model/kernel/alu.cpp); `unit` instructions go to the model's units by their op kind.
enum class Opc : uint16_t {
    // data movement and integer arithmetic
    mov, mov_pack, mov_unpack, add, sub, mul_lo, mul_hi, mul_wide, mad_lo, mad_hi, mad_wide, mul24_lo, mad24_lo,
    div, rem, abs, neg, min, max, popc, clz, bfind, brev, bfe, bfi, prmt, shl, shr, shf_l, shf_r,
    and_, or_, xor_, not_, cnot, lop3, add_cc, addc, sub_cc, subc, mad_cc, madc, sad, dp4a, dp2a,
    setp, set, selp, slct, cvt, cvta_to, cvta_from, copysign, testp,
    // float
    fadd, fsub, fmul, ffma, fdiv, frcp, fsqrt, frsqrt, fex2, flg2, fsin, fcos, ftanh, fmin, fmax, fabs, fneg,
    // warp collectives and special values
    shfl, vote, match, redux, activemask, elect, read_clock, read_globaltimer, bar_warp, nanosleep, nop,
    mapa, getctarank, isspacep, createpolicy, setmaxnreg,
    // control flow
    bra, exit, trap, ret_inline,
    // local, param and const memory (inside the warp), module-scope globals
    ld_private, st_private,
    // everything the model's units see (DInst::op_id names the op)
    unit,
};

// Modifier bits of DInst::mod.
enum : uint32_t {
    kModSat = 1u << 0, kModFtz = 1u << 1, kModApprox = 1u << 2, kModCc = 1u << 3,
    kModRoundShift = 4,  // 3 bits: 0 default, 1 rn, 2 rz, 3 rm, 4 rp, 5 rni, 6 rzi, 7 rmi; 8 would be rpi
    kModRoundMask = 0xFu << 4,
    kModCmpShift = 8,    // 5 bits: the comparison of setp/set (Cmp)
    kModCmpMask = 0x1Fu << 8,
    kModBoolShift = 13,  // 2 bits: setp's combining op: 0 none, 1 and, 2 or, 3 xor
    kModBoolMask = 0x3u << 13,
    kModWrap = 1u << 15, kModClamp = 1u << 16, kModNan = 1u << 17, kModRelu = 1u << 18,
    kModXorsign = 1u << 19, kModAbs = 1u << 20, kModUni = 1u << 21, kModFull = 1u << 22,
};
enum class Round : uint8_t { none, rn, rz, rm, rp, rni, rzi, rmi, rpi };
enum class Cmp : uint8_t { eq, ne, lt, le, gt, ge, lo, ls, hi, hs, equ, neu, ltu, leu, gtu, geu, num, nan };

// shfl modes, vote modes and match/redux operations ride in DInst::sub.
enum class ShflMode : uint8_t { up, down, bfly, idx };
enum class VoteMode : uint8_t { all, any, uni, ballot };
enum class ReduxOp : uint8_t { add, min, max, and_, or_, xor_ };

struct DInst {
    Opc op = Opc::nop;
    Ty type = Ty::none;    // the instruction's type
    Ty type2 = Ty::none;   // cvt's source type, setp's compared type, ...
    uint8_t sub = 0;       // ShflMode, VoteMode, ReduxOp, cvta's space, ...
    uint32_t mod = 0;
    int32_t guard = -1;    // the guard predicate's slot, -1 none
    bool guard_neg = false;
    uint8_t ndst = 0, nsrc = 0;
    int32_t dst[2] = {-1, -1};
    int32_t src[4] = {-1, -1, -1, -1};
    int64_t imm = 0;       // an address operand's byte offset; vector counts; ...
    int32_t target = -1;   // bra: the instruction it jumps to
    int32_t reconv = -1;   // bra: where the warp's lanes meet again if they part here
    int32_t op_id = -1;    // unit: the kernel op (Scenario::program[op_id])
    int32_t fn = 0;        // the ptx function (BoundKernel::functions index) and instruction
    int32_t ins = 0;       //   it came from, for messages and for the unit handlers' operands
    int32_t extra = -1;    // index of its slot list in DecodedProgram::lists (vectors, wgmma registers)
    // ld_private / st_private: which private space (PrivateSpace), and the access width in bytes.
    uint8_t space = 0;
    uint8_t width = 0;
    uint8_t vec = 1;       // .v2 / .v4 accesses
};

enum class PrivateSpace : uint8_t { local, param, const_, module_global };

// The slots of the warp's register file. Registers of the entry come first, then each inlined
// callee's, then the constants (immediates, symbol addresses) and special registers, whose
// values the warp writes once at its start (KernelWarp::init_slots).
struct SlotInit {
    enum class Kind : uint8_t { zero, constant, special } kind = Kind::zero;
    uint64_t value = 0;   // constant: the value in every lane
    std::string special;  // special: "%tid.x", "%laneid", ... (the per-lane value)
};

struct DecodedProgram {
    std::vector<DInst> code;
    std::vector<SlotInit> slots;
    std::vector<std::vector<int32_t>> lists;  // operand lists too long for DInst (by DInst::extra)
    int64_t local_bytes = 0;                  // per thread: .local variables and inlined call params
    int32_t start = 0;                        // the entry's first instruction
    int slot_count() const { return static_cast<int>(slots.size()); }
};

}  // namespace tmasim::model::kernel
