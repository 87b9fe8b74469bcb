package io.jvs.core.conn;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The TCP next-state table of the kernel's {@code tcp_states} ({@code net/netfilter/ipvs/ip_vs_proto_tcp.c}),
 * every one of its 132 entries, read from a second transcription of it kept here as text, so that a slip in
 * {@link TcpStates}' own copy fails here. Rows are driven through {@link TcpStates#flagIndex} with a real
 * flags byte, so the flag numbering is covered as well.
 */
class TcpStateTableTest
{
    /**
     * The column sentence and the table, copied verbatim from the behaviour reference jvs is written against
     * and not from {@link TcpStates}, so that the two transcriptions check each other.
     */
    private static final String SPEC_COLUMNS =
        "Next-state table (rows: direction/flag; columns: current state NO ES SS SR FW TW CL CW LA LI SA):";

    private static final String SPEC_TABLE = """
        INPUT      syn: SR ES ES SR SR SR SR SR SR SR SR
        INPUT      fin: CL CW SS TW TW TW CL CW LA LI TW
        INPUT      ack: ES ES SS ES FW TW CL CW CL LI ES
        INPUT      rst: CL CL CL SR CL CL CL CL LA LI SR
        OUTPUT     syn: SS ES SS SR SS SS SS SS SS LI SR
        OUTPUT     fin: TW FW SS TW FW TW CL TW LA LI TW
        OUTPUT     ack: ES ES SS ES FW TW CL CW LA ES ES
        OUTPUT     rst: CL CL SS CL CL TW CL CL CL CL CL
        INPUT_ONLY syn: SR ES ES SR SR SR SR SR SR SR SR
        INPUT_ONLY fin: CL FW SS TW FW TW CL CW LA LI TW
        INPUT_ONLY ack: ES ES SS ES FW TW CL CW CL LI ES
        INPUT_ONLY rst: CL CL CL SR CL CL CL CL LA LI CL
        """;

    /** A flags byte that selects each row: the flag alone. */
    private static final Map<String, Integer> ROW_FLAGS = Map.of("syn", 0x02, "fin", 0x01, "ack", 0x10, "rst", 0x04);

    private static final Map<String, Integer> DIRECTIONS =
        Map.of("INPUT", TcpStates.INPUT, "OUTPUT", TcpStates.OUTPUT, "INPUT_ONLY", TcpStates.INPUT_ONLY);

    /** The table's column order, which is the kernel's state numbering ({@code IP_VS_TCP_S_NONE} first). */
    private static List<String> columns()
    {
        final String list = SPEC_COLUMNS.substring(
            SPEC_COLUMNS.indexOf("current state ") + "current state ".length(), SPEC_COLUMNS.indexOf(')'));
        return Arrays.asList(list.split(" "));
    }

    static List<Arguments> specEntries()
    {
        final List<String> columns = columns();
        final List<Arguments> entries = new ArrayList<>();
        for (final String line : SPEC_TABLE.strip().split("\n"))
        {
            final String[] halves = line.split(":");
            final String[] row = halves[0].trim().split("\\s+");
            final String[] next = halves[1].trim().split(" ");
            assertThat(next).as(line).hasSize(columns.size());
            for (int i = 0; i < next.length; i++)
            {
                entries.add(Arguments.of(row[0], row[1], columns.get(i), next[i]));
            }
        }
        return entries;
    }

    @ParameterizedTest(name = "{0} {1}: {2} -> {3}")
    @MethodSource("specEntries")
    void shouldMoveToTheSpecsNextStateWhenAPacketArrives(
        final String direction, final String flag, final String from, final String to)
    {
        final List<String> columns = columns();
        final int next = TcpStates.next(
            DIRECTIONS.get(direction), TcpStates.flagIndex(ROW_FLAGS.get(flag)), columns.indexOf(from));

        assertThat(next).as("%s %s from %s", direction, flag, from).isEqualTo(columns.indexOf(to));
    }

    @Test
    void shouldCoverAll132EntriesWhenTheSpecTableIsParsed()
    {
        // Guards the parameterised test itself: a row lost in the copy would shrink it silently.
        assertThat(specEntries()).hasSize(TcpStates.DIRECTIONS * TcpStates.FLAGS * TcpStates.COUNT).hasSize(132);
    }

    @Test
    void shouldNumberStatesInTheKernelsOrderWhenComparedWithTheSpecsColumns()
    {
        final int[] constants = {
            TcpStates.NONE, TcpStates.ESTABLISHED, TcpStates.SYN_SENT, TcpStates.SYN_RECV, TcpStates.FIN_WAIT,
            TcpStates.TIME_WAIT, TcpStates.CLOSE, TcpStates.CLOSE_WAIT, TcpStates.LAST_ACK, TcpStates.LISTEN,
            TcpStates.SYNACK,
        };
        final List<String> columns = columns();

        assertThat(columns).containsExactly("NO", "ES", "SS", "SR", "FW", "TW", "CL", "CW", "LA", "LI", "SA");
        for (int i = 0; i < constants.length; i++)
        {
            assertThat(constants[i]).as(columns.get(i)).isEqualTo(i);
        }
        assertThat(TcpStates.COUNT).isEqualTo(columns.size());
    }

    @Test
    void shouldNameStatesAsIpvsadmListsThemWhenAskedForEachState()
    {
        final List<String> names = new ArrayList<>();
        for (int state = 0; state < TcpStates.COUNT; state++)
        {
            names.add(TcpStates.name(state));
        }

        assertThat(names).containsExactly(
            "NONE", "ESTABLISHED", "SYN_SENT", "SYN_RECV", "FIN_WAIT", "TIME_WAIT",
            "CLOSE", "CLOSE_WAIT", "LAST_ACK", "LISTEN", "SYNACK");
    }

    @Test
    void shouldNumberDirectionsAndRowsAsTheKernelWhenUsedAsIndices()
    {
        assertThat(new int[] {TcpStates.INPUT, TcpStates.OUTPUT, TcpStates.INPUT_ONLY}).containsExactly(0, 1, 2);
        assertThat(new int[] {TcpStates.FLAG_SYN, TcpStates.FLAG_FIN, TcpStates.FLAG_ACK, TcpStates.FLAG_RST})
            .containsExactly(0, 1, 2, 3);
        assertThat(TcpStates.FLAG_NONE).isNegative();
    }
}
