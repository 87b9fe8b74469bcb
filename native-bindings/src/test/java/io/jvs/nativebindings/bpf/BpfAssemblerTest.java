package io.jvs.nativebindings.bpf;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static io.jvs.nativebindings.bpf.BpfRegister.R0;
import static io.jvs.nativebindings.bpf.BpfRegister.R1;
import static io.jvs.nativebindings.bpf.BpfRegister.R10;
import static io.jvs.nativebindings.bpf.BpfRegister.R2;
import static io.jvs.nativebindings.bpf.BpfRegister.R3;
import static io.jvs.nativebindings.bpf.BpfRegister.R4;
import static io.jvs.nativebindings.bpf.BpfRegister.R5;
import static io.jvs.nativebindings.bpf.BpfRegister.R6;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The assembler reproduces, slot by slot, the two programs of the kernel-bypass notes (their raw tables
 * were verified against the kernel), and rejects what the kernel could not load.
 */
class BpfAssemblerTest
{
    static final int XSKMAP_FD = 7;
    private static final int VIPS_FD = 9;

    /** Program 1 of the notes: {code, dst, src, off, imm}. */
    static final int[][] PROGRAM_1 = {
        {0x61, 2, 1, 16, 0},
        {0x18, 1, 1, 0, XSKMAP_FD},
        {0x00, 0, 0, 0, 0},
        {0xb7, 3, 0, 0, 2},
        {0x85, 0, 0, 0, 51},
        {0x95, 0, 0, 0, 0},
    };

    /** Program 2 of the notes (IPv4 VIPs, untagged). */
    private static final int[][] PROGRAM_2 = {
        {0xbf, 6, 1, 0, 0},
        {0x61, 2, 1, 0, 0},
        {0x61, 3, 1, 4, 0},
        {0xbf, 4, 2, 0, 0},
        {0x07, 4, 0, 0, 34},
        {0x2d, 4, 3, 12, 0},
        {0x69, 5, 2, 12, 0},
        {0x55, 5, 0, 10, 0x0008},
        {0x61, 5, 2, 30, 0},
        {0x63, 10, 5, -4, 0},
        {0xbf, 2, 10, 0, 0},
        {0x07, 2, 0, 0, -4},
        {0x18, 1, 1, 0, VIPS_FD},
        {0x00, 0, 0, 0, 0},
        {0x85, 0, 0, 0, 1},
        {0x15, 0, 0, 2, 0},
        {0x61, 2, 6, 16, 0},
        {0x05, 0, 0, 2, 0},
        {0xb7, 0, 0, 0, 2},
        {0x95, 0, 0, 0, 0},
        {0x18, 1, 1, 0, XSKMAP_FD},
        {0x00, 0, 0, 0, 0},
        {0xb7, 3, 0, 0, 2},
        {0x85, 0, 0, 0, 51},
        {0x95, 0, 0, 0, 0},
    };

    @Test
    void shouldAssembleProgramOneOfTheNotesExactly()
    {
        final BpfBytecode program = new BpfAssembler()
            .load(BpfSize.WORD, R2, R1, XdpMetadata.RX_QUEUE_INDEX)
            .loadMap(R1, "xsks")
            .mov64(R3, XdpAction.PASS)
            .call(BpfHelper.REDIRECT_MAP)
            .exit()
            .build();

        assertThat(fields(program.link(Map.of("xsks", XSKMAP_FD)))).isEqualTo(PROGRAM_1);
    }

    @Test
    void shouldAssembleProgramTwoOfTheNotesExactlyWithLabelsAcrossLoad64()
    {
        final BpfBytecode program = new BpfAssembler()
            .mov64(R6, R1)
            .load(BpfSize.WORD, R2, R1, XdpMetadata.DATA)
            .load(BpfSize.WORD, R3, R1, XdpMetadata.DATA_END)
            .mov64(R4, R2)
            .add64(R4, 34)
            .jumpIf(R4, BpfCondition.GREATER, R3, "pass")
            .load(BpfSize.HALF, R5, R2, 12)
            .jumpIf(R5, BpfCondition.NOT_EQUAL, 0x0008, "pass")
            .load(BpfSize.WORD, R5, R2, 30)
            .store(BpfSize.WORD, R10, -4, R5)
            .mov64(R2, R10)
            .add64(R2, -4)
            .loadMap(R1, "vips")
            .call(BpfHelper.MAP_LOOKUP_ELEM)
            .jumpIf(R0, BpfCondition.EQUAL, 0, "pass")
            .load(BpfSize.WORD, R2, R6, XdpMetadata.RX_QUEUE_INDEX)
            .jump("redirect")
            .label("pass")
            .mov64(R0, XdpAction.PASS)
            .exit()
            .label("redirect")
            .loadMap(R1, "xsks")
            .mov64(R3, XdpAction.PASS)
            .call(BpfHelper.REDIRECT_MAP)
            .exit()
            .build();

        assertThat(program.mapNames()).containsExactly("vips", "xsks");
        assertThat(fields(program.link(Map.of("xsks", XSKMAP_FD, "vips", VIPS_FD)))).isEqualTo(PROGRAM_2);
    }

    @Test
    void shouldWriteEachSlotAsEightLittleEndianBytes()
    {
        final BpfBytecode program = new BpfAssembler()
            .load(BpfSize.HALF, R5, R2, -2)
            .mov64(R0, 0x01020304)
            .exit()
            .build();

        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment memory = program.copyTo(arena);
            assertThat(memory.byteSize()).isEqualTo(24);
            assertThat(memory.asSlice(0, 8).toArray(ValueLayout.JAVA_BYTE))
                .containsExactly(0x69, 0x25, 0xfe, 0xff, 0, 0, 0, 0);
            assertThat(memory.asSlice(8, 8).toArray(ValueLayout.JAVA_BYTE))
                .containsExactly(0xb7, 0x00, 0, 0, 0x04, 0x03, 0x02, 0x01);
        }
    }

    @Test
    void shouldJumpBackwardsWithNegativeOffsets()
    {
        final BpfBytecode program = new BpfAssembler()
            .label("top")
            .add64(R1, 1)
            .loadImmediate64(R2, 0x1_0000_0002L)
            .jumpIf(R1, BpfCondition.LESS, 10, "top")
            .exit()
            .build();

        assertThat(BpfInstruction.offset(program.slot(3))).isEqualTo(-4);
        assertThat(BpfInstruction.immediate(program.slot(1))).isEqualTo(2);
        assertThat(BpfInstruction.immediate(program.slot(2))).isEqualTo(1);
    }

    @Test
    void shouldRefuseUnboundAndDuplicateLabels()
    {
        assertThatThrownBy(() -> new BpfAssembler().jump("nowhere").exit().build())
            .hasMessageContaining("nowhere");
        assertThatThrownBy(() -> new BpfAssembler().label("twice").exit().label("twice"))
            .hasMessageContaining("twice");
    }

    @Test
    void shouldRefuseJumpsPastTheEnd()
    {
        final BpfAssembler pastEnd = new BpfAssembler().jump("end").exit().label("end");

        assertThatThrownBy(pastEnd::build).hasMessageContaining("end at 2 is not an instruction");
    }

    @Test
    void shouldRefuseToLinkWithoutEveryMapFd()
    {
        final BpfBytecode program = new BpfAssembler().loadMap(R1, "a").loadMap(R2, "b").exit().build();

        assertThat(program.isLinked()).isFalse();
        assertThatThrownBy(() -> program.link(Map.of("a", 3))).hasMessageContaining("[b]");
        assertThat(program.link(Map.of("a", 3, "b", 4)).isLinked()).isTrue();
    }

    @Test
    void shouldEncodeByteSwapsAndAtomicAddsAsTheKernelDoes()
    {
        final BpfBytecode program = new BpfAssembler()
            .toBigEndian(R0, 32)
            .toBigEndian(R4, 16)
            .atomicAdd(BpfSize.DOUBLE, R0, 8, R1)
            .atomicAdd(BpfSize.WORD, R2, -4, R3)
            .exit()
            .build();

        // r0 = be32 r0; r4 = be16 r4; lock *(u64 *)(r0 + 8) += r1; lock *(u32 *)(r2 - 4) += r3
        assertThat(fields(program)).isEqualTo(new int[][] {
            {0xdc, 0, 0, 0, 32}, {0xdc, 4, 0, 0, 16}, {0xdb, 0, 1, 8, 0}, {0xc3, 2, 3, -4, 0}, {0x95, 0, 0, 0, 0}});
        assertThatThrownBy(() -> new BpfAssembler().toBigEndian(R0, 8)).hasMessageContaining("8 bits");
        assertThatThrownBy(() -> new BpfAssembler().atomicAdd(BpfSize.HALF, R0, 0, R1))
            .hasMessageContaining("HALF");
    }

    @Test
    void shouldRefuseOffsetsBeyondSixteenBits()
    {
        assertThatThrownBy(() -> new BpfAssembler().load(BpfSize.WORD, R1, R2, 40_000))
            .isInstanceOf(IllegalArgumentException.class);
    }

    static int[][] fields(final BpfBytecode program)
    {
        final int[][] fields = new int[program.slotCount()][];
        for (int i = 0; i < fields.length; i++)
        {
            final long slot = program.slot(i);
            fields[i] = new int[] {BpfInstruction.code(slot), BpfInstruction.dst(slot), BpfInstruction.src(slot),
                BpfInstruction.offset(slot), BpfInstruction.immediate(slot)};
        }
        return fields;
    }
}
