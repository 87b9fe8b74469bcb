package io.jvs.nativebindings.bpf;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.jvs.nativebindings.bpf.BpfOpcode.CLASS_ALU;
import static io.jvs.nativebindings.bpf.BpfOpcode.CLASS_ALU64;
import static io.jvs.nativebindings.bpf.BpfOpcode.CLASS_JMP;
import static io.jvs.nativebindings.bpf.BpfOpcode.CLASS_JMP32;
import static io.jvs.nativebindings.bpf.BpfOpcode.CLASS_LD;
import static io.jvs.nativebindings.bpf.BpfOpcode.CLASS_LDX;
import static io.jvs.nativebindings.bpf.BpfOpcode.CLASS_ST;
import static io.jvs.nativebindings.bpf.BpfOpcode.CLASS_STX;
import static io.jvs.nativebindings.bpf.BpfOpcode.MODE_ATOMIC;
import static io.jvs.nativebindings.bpf.BpfOpcode.MODE_IMMEDIATE;
import static io.jvs.nativebindings.bpf.BpfOpcode.MODE_MEMORY;
import static io.jvs.nativebindings.bpf.BpfOpcode.SIZE_DOUBLE;
import static io.jvs.nativebindings.bpf.BpfOpcode.SOURCE_IMMEDIATE;
import static io.jvs.nativebindings.bpf.BpfOpcode.SOURCE_REGISTER;

/**
 * Builds a BPF program instruction by instruction. Jumps name a label; {@link #build()} turns each into
 * the kernel's relative offset (the target is {@code pc + 1 + off}, counting an {@code ld_imm64} as two
 * slots). Maps are named too and become fds when the program is {@link BpfBytecode#link linked}.
 * <p>
 * Instructions read as the kernel's verifier prints them, e.g. {@code r2 = *(u32 *)(r1 + 16)} is
 * {@code load(WORD, R2, R1, 16)}. An assembler is used once.
 */
public final class BpfAssembler
{
    private static final int LOAD_IMMEDIATE_64 = CLASS_LD | MODE_IMMEDIATE | SIZE_DOUBLE;

    private final List<Long> slots = new ArrayList<>();
    private final Map<String, Integer> labels = new HashMap<>();
    private final List<JumpFixup> jumps = new ArrayList<>();
    private final List<BpfBytecode.MapRelocation> relocations = new ArrayList<>();
    private boolean built;

    private record JumpFixup(int slot, String label)
    {
    }

    /**
     * Marks the next instruction as the target {@code name}.
     *
     * @throws IllegalArgumentException when the label is already bound.
     */
    public BpfAssembler label(final String name)
    {
        if (labels.putIfAbsent(name, slots.size()) != null)
        {
            throw new IllegalArgumentException("label " + name + " is bound twice");
        }
        return this;
    }

    /** {@code dst = src} (64-bit). */
    public BpfAssembler mov64(final BpfRegister dst, final BpfRegister src)
    {
        return alu64(BpfOpcode.ALU_MOV, dst, src);
    }

    /** {@code dst = immediate}, sign-extended to 64 bits. */
    public BpfAssembler mov64(final BpfRegister dst, final int immediate)
    {
        return alu64(BpfOpcode.ALU_MOV, dst, immediate);
    }

    /** {@code dst += immediate} (64-bit). */
    public BpfAssembler add64(final BpfRegister dst, final int immediate)
    {
        return alu64(BpfOpcode.ALU_ADD, dst, immediate);
    }

    /** {@code dst += src} (64-bit). */
    public BpfAssembler add64(final BpfRegister dst, final BpfRegister src)
    {
        return alu64(BpfOpcode.ALU_ADD, dst, src);
    }

    /** {@code dst = dst op src} (64-bit), {@code operation} being one of {@code BpfOpcode.ALU_*}. */
    public BpfAssembler alu64(final int operation, final BpfRegister dst, final BpfRegister src)
    {
        return emit(CLASS_ALU64 | operation | SOURCE_REGISTER, dst, src, 0, 0);
    }

    /** {@code dst = dst op immediate} (64-bit). */
    public BpfAssembler alu64(final int operation, final BpfRegister dst, final int immediate)
    {
        return emit(CLASS_ALU64 | operation | SOURCE_IMMEDIATE, dst, BpfRegister.R0, 0, immediate);
    }

    /** {@code dst = (u32)(dst op src)}: 32-bit, the upper half zeroed. */
    public BpfAssembler alu32(final int operation, final BpfRegister dst, final BpfRegister src)
    {
        return emit(CLASS_ALU | operation | SOURCE_REGISTER, dst, src, 0, 0);
    }

    /** {@code dst = (u32)(dst op immediate)}. */
    public BpfAssembler alu32(final int operation, final BpfRegister dst, final int immediate)
    {
        return emit(CLASS_ALU | operation | SOURCE_IMMEDIATE, dst, BpfRegister.R0, 0, immediate);
    }

    /**
     * {@code dst = htobe16/32/64(dst)} ({@code r0 = be32 r0} in the verifier's log): on the little-endian
     * machines jvs runs on, the low {@code bits} reversed byte by byte and the rest zeroed. It turns a field
     * loaded from the packet into its numeric value, and back.
     *
     * @param bits 16, 32 or 64.
     */
    public BpfAssembler toBigEndian(final BpfRegister dst, final int bits)
    {
        if (bits != 16 && bits != 32 && bits != 64)
        {
            throw new IllegalArgumentException("byte order conversion of " + bits + " bits: 16, 32 or 64 only");
        }
        return emit(CLASS_ALU | BpfOpcode.ALU_END | BpfOpcode.END_TO_BIG, dst, BpfRegister.R0, 0, bits);
    }

    /**
     * {@code lock *(size *)(dst + offset) += src}: an atomic add, for a counter in a map value that programs on
     * several CPUs update.
     *
     * @param size WORD or DOUBLE (the kernel has no narrower atomics).
     */
    public BpfAssembler atomicAdd(final BpfSize size, final BpfRegister dst, final int offset, final BpfRegister src)
    {
        if (size != BpfSize.WORD && size != BpfSize.DOUBLE)
        {
            throw new IllegalArgumentException("atomic add of " + size + ": WORD or DOUBLE only");
        }
        return emit(CLASS_STX | MODE_ATOMIC | size.opcodeBits(), dst, src, offset, BpfOpcode.ATOMIC_ADD);
    }

    /** {@code dst = *(size *)(src + offset)}, zero-extended. */
    public BpfAssembler load(final BpfSize size, final BpfRegister dst, final BpfRegister src, final int offset)
    {
        return emit(CLASS_LDX | MODE_MEMORY | size.opcodeBits(), dst, src, offset, 0);
    }

    /** {@code *(size *)(dst + offset) = src}. */
    public BpfAssembler store(final BpfSize size, final BpfRegister dst, final int offset, final BpfRegister src)
    {
        return emit(CLASS_STX | MODE_MEMORY | size.opcodeBits(), dst, src, offset, 0);
    }

    /** {@code *(size *)(dst + offset) = immediate}. */
    public BpfAssembler storeImmediate(final BpfSize size, final BpfRegister dst, final int offset, final int immediate)
    {
        return emit(CLASS_ST | MODE_MEMORY | size.opcodeBits(), dst, BpfRegister.R0, offset, immediate);
    }

    /** {@code dst = value}: an {@code ld_imm64}, two slots. */
    public BpfAssembler loadImmediate64(final BpfRegister dst, final long value)
    {
        emit(LOAD_IMMEDIATE_64, dst.number(), 0, 0, (int)value);
        slots.add(BpfInstruction.encode(0, 0, 0, 0, (int)(value >>> 32)));
        return this;
    }

    /** {@code dst = map}: an {@code ld_imm64} of the map's fd (BPF_PSEUDO_MAP_FD), filled in when linked. */
    public BpfAssembler loadMap(final BpfRegister dst, final String mapName)
    {
        relocations.add(new BpfBytecode.MapRelocation(slots.size(), mapName));
        emit(LOAD_IMMEDIATE_64, dst.number(), BpfOpcode.PSEUDO_MAP_FD, 0, 0);
        slots.add(0L);
        return this;
    }

    /** {@code goto label}. */
    public BpfAssembler jump(final String label)
    {
        return jumpTo(CLASS_JMP | BpfOpcode.JMP_JA, BpfRegister.R0, BpfRegister.R0, 0, label);
    }

    /** {@code if dst condition immediate goto label} (64-bit compare). */
    public BpfAssembler jumpIf(
        final BpfRegister dst, final BpfCondition condition, final int immediate, final String label)
    {
        return jumpTo(CLASS_JMP | condition.operation() | SOURCE_IMMEDIATE, dst, BpfRegister.R0, immediate, label);
    }

    /** {@code if dst condition src goto label} (64-bit compare). */
    public BpfAssembler jumpIf(
        final BpfRegister dst, final BpfCondition condition, final BpfRegister src, final String label)
    {
        return jumpTo(CLASS_JMP | condition.operation() | SOURCE_REGISTER, dst, src, 0, label);
    }

    /** {@code if (u32)dst condition immediate goto label} (32-bit compare). */
    public BpfAssembler jumpIf32(
        final BpfRegister dst, final BpfCondition condition, final int immediate, final String label)
    {
        return jumpTo(CLASS_JMP32 | condition.operation() | SOURCE_IMMEDIATE, dst, BpfRegister.R0, immediate, label);
    }

    /** {@code r0 = helper(r1, ..., r5)}; r1 to r5 are clobbered. */
    public BpfAssembler call(final int helper)
    {
        return emit(CLASS_JMP | BpfOpcode.JMP_CALL, BpfRegister.R0, BpfRegister.R0, 0, helper);
    }

    /** {@code return r0}. */
    public BpfAssembler exit()
    {
        return emit(CLASS_JMP | BpfOpcode.JMP_EXIT, BpfRegister.R0, BpfRegister.R0, 0, 0);
    }

    /**
     * @return the program, every jump resolved.
     * @throws IllegalStateException when a label is missing, a jump is out of 16-bit range or lands past the
     *                               end. (A label always binds to a whole instruction, never inside an
     *                               {@code ld_imm64}.)
     */
    public BpfBytecode build()
    {
        if (built)
        {
            throw new IllegalStateException("an assembler builds one program");
        }
        built = true;
        final long[] program = slots.stream().mapToLong(Long::longValue).toArray();
        for (final JumpFixup jump : jumps)
        {
            final Integer target = labels.get(jump.label());
            if (target == null)
            {
                throw new IllegalStateException("jump at " + jump.slot() + " to unbound label " + jump.label());
            }
            if (target >= program.length)
            {
                throw new IllegalStateException("label " + jump.label() + " at " + target + " is not an instruction");
            }
            final int offset = target - (jump.slot() + 1);
            if (offset < Short.MIN_VALUE || offset > Short.MAX_VALUE)
            {
                throw new IllegalStateException("jump at " + jump.slot() + " to " + jump.label() + " is too far");
            }
            program[jump.slot()] = BpfInstruction.encode(BpfInstruction.code(program[jump.slot()]),
                BpfInstruction.dst(program[jump.slot()]), BpfInstruction.src(program[jump.slot()]), offset,
                BpfInstruction.immediate(program[jump.slot()]));
        }
        return new BpfBytecode(program, relocations);
    }

    private BpfAssembler jumpTo(
        final int code, final BpfRegister dst, final BpfRegister src, final int immediate, final String label)
    {
        jumps.add(new JumpFixup(slots.size(), label));
        return emit(code, dst, src, 0, immediate);
    }

    private BpfAssembler emit(
        final int code, final BpfRegister dst, final BpfRegister src, final int offset, final int immediate)
    {
        return emit(code, dst.number(), src.number(), offset, immediate);
    }

    private BpfAssembler emit(final int code, final int dst, final int src, final int offset, final int immediate)
    {
        if (built)
        {
            throw new IllegalStateException("the program is already built");
        }
        slots.add(BpfInstruction.encode(code, dst, src, offset, immediate));
        return this;
    }
}
