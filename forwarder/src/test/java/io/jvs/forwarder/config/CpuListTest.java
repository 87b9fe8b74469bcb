package io.jvs.forwarder.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.BitSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The kernel's cpulist format both ways: what /proc/self/status's Cpus_allowed_list holds reads back to the same
 * text, and a list that is not one is refused saying why.
 */
class CpuListTest
{
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"0|0", "0-1|0-1", "0,2-3|0,2-3", "3,0-1|0-1,3", "0,1,2,5|0-2,5",
        "8191|8191"})
    void shouldReadAndWriteTheKernelsFormat(final String text, final String formatted)
    {
        assertThat(CpuList.format(CpuList.parseSet(text))).isEqualTo(formatted);
    }

    @Test
    void shouldKeepTheOrderWritten()
    {
        assertThat(CpuList.parse("3,0-1")).containsExactly(3, 0, 1);
        assertThat(CpuList.format(new BitSet())).isEmpty();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "0,,1|cpus \"0,,1\" has an empty item (write the list as 0,2-3)",
        "3-1|cpus: the range 3-1 runs backwards",
        "0-1,1|cpus: CPU 1 is listed twice",
        "8192|cpus \"8192\": \"8192\" is not a CPU number (0..8191)",
        "x|cpus \"x\": \"x\" is not a CPU number (0..8191)"})
    void shouldRefuseWhatIsNotAList(final String text, final String message)
    {
        assertThatThrownBy(() -> CpuList.parse(text)).isInstanceOf(IllegalArgumentException.class)
            .hasMessage(message);
    }
}
