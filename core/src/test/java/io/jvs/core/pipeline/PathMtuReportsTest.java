package io.jvs.core.pipeline;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class PathMtuReportsTest
{
    @Test
    void shouldHandOverReportsOldestFirstAndDropThoseBeyondItsCapacity()
    {
        final PathMtuReports reports = new PathMtuReports();
        for (int i = 0; i < PathMtuReports.CAPACITY + 4; i++)
        {
            reports.record(0x0A00_0000 + i, 1000 + i);
        }
        assertThat(reports.pending()).isEqualTo(PathMtuReports.CAPACITY);
        final List<Integer> mtus = new ArrayList<>();
        assertThat(reports.drain((server, mtu) -> mtus.add(server - 0x0A00_0000 + mtu))).isEqualTo(16);
        assertThat(mtus).hasSize(16).first().isEqualTo(1000);
        assertThat(mtus.get(15)).isEqualTo(1030);

        reports.record(0x0A00_0001, 1400);
        assertThat(reports.drain((server, mtu) -> mtus.add(mtu))).isEqualTo(1);
        assertThat(mtus).last().isEqualTo(1400);
    }
}
