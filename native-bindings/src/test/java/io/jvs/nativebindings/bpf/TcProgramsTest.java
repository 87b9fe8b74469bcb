package io.jvs.nativebindings.bpf;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tc programs as instructions: the drop-all program is {@code r0 = TCX_DROP; exit}.
 */
class TcProgramsTest
{
    @Test
    void shouldDropEveryFrame()
    {
        final BpfBytecode program = TcPrograms.dropAll();

        assertThat(program.slotCount()).isEqualTo(2);
        assertThat(program.slot(0)).isEqualTo(BpfInstruction.encode(0xb7, 0, 0, 0, TcPrograms.DROP));
        assertThat(program.slot(1)).isEqualTo(BpfInstruction.encode(0x95, 0, 0, 0, 0));
        assertThat(program.mapNames()).isEmpty();
        assertThat(program.isLinked()).isTrue();
    }
}
