/* SPDX-License-Identifier: BSD-3-Clause */
#include "reasm_opts.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace {

bool parse_u64(const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno == 0 && *end == '\0' && *v <= max;
}

template <typename T>
bool parse_num(const char *s, uint64_t max, T *out)
{
	uint64_t v;

	if (!parse_u64(s, max, &v))
		return false;
	*out = (T)v;
	return true;
}

/* OFFSET,HDR,PAY[,reverse] */
bool parse_split(const char *s, struct rte_reasm_split *l)
{
	unsigned int off, h, p;
	char tail[16] = "";
	int n = sscanf(s, "%u,%u,%u,%15s", &off, &h, &p, tail);

	if (n < 3 || p == 0 || (n == 4 && strcmp(tail, "reverse") != 0))
		return false;
	*l = {off, h, p, n == 4 ? 1u : 0u};
	return true;
}

} // namespace

void reasm_app_usage(const char *prog)
{
	printf("Usage: %s <EAL args> -- [options]\n"
	       "Receives on one port, reassembles (or linearizes, or splits) and sends the\n"
	       "results on another; with net_pcap vdevs it turns a pcap into a pcap:\n"
	       "  %s --vdev net_pcap0,rx_pcap=in.pcap --vdev net_pcap1,tx_pcap=out.pcap -- ...\n"
	       "  --engine cpu|DMADEV     copy engine: the CPU (default) or a dmadev by name\n"
	       "  --dma-mode auto|umr|sg|copy  how a dmadev gathers (default auto: umr on\n"
	       "                          dma_mlx5, else sg when the device has COPY_SG)\n"
	       "  --mode reassemble|linearize|split   (default reassemble)\n"
	       "  --split OFF,H,P[,reverse]  split layout: OFF bytes, then records of H+P\n"
	       "  --keep-headers          split: keep the headers after the payloads\n"
	       "  --timeout-ms N          datagram lifetime (default 60000)\n"
	       "  --max-frags N           fragments per datagram (default 64)\n"
	       "  --max-dgrams N          datagrams in reassembly (default 4096)\n"
	       "  --max-bytes N           buffer bytes of fragments held (default 64 MiB)\n"
	       "  --max-inflight N        gathers in flight (default 256)\n"
	       "  --ipv4-overlap-trim     IPv4 overlaps trimmed, not discarded\n"
	       "  --rx-port N / --tx-port N   ports (default 0 and 1)\n"
	       "  --idle-ms N             a pcap input is over after N ms without packets\n"
	       "                          (default 200; 0: run until SIGINT)\n"
	       "  --mbuf-size N           rx mbuf data room (default 2048)\n"
	       "  --progress-ms N         progress line period (default 1000, 0: none)\n",
	       prog, prog);
}

int reasm_app_parse(int argc, char **argv, struct reasm_app_opts *o)
{
	enum {
		O_ENGINE = 256,
		O_DMA_MODE,
		O_MODE,
		O_SPLIT,
		O_KEEP,
		O_TIMEOUT,
		O_FRAGS,
		O_DGRAMS,
		O_BYTES,
		O_INFLIGHT,
		O_TRIM,
		O_RX,
		O_TX,
		O_IDLE,
		O_MBUF,
		O_PROGRESS
	};
	static const struct option longopts[] = {
		{"engine", required_argument, nullptr, O_ENGINE},
		{"dma-mode", required_argument, nullptr, O_DMA_MODE},
		{"mode", required_argument, nullptr, O_MODE},
		{"split", required_argument, nullptr, O_SPLIT},
		{"keep-headers", no_argument, nullptr, O_KEEP},
		{"timeout-ms", required_argument, nullptr, O_TIMEOUT},
		{"max-frags", required_argument, nullptr, O_FRAGS},
		{"max-dgrams", required_argument, nullptr, O_DGRAMS},
		{"max-bytes", required_argument, nullptr, O_BYTES},
		{"max-inflight", required_argument, nullptr, O_INFLIGHT},
		{"ipv4-overlap-trim", no_argument, nullptr, O_TRIM},
		{"rx-port", required_argument, nullptr, O_RX},
		{"tx-port", required_argument, nullptr, O_TX},
		{"idle-ms", required_argument, nullptr, O_IDLE},
		{"mbuf-size", required_argument, nullptr, O_MBUF},
		{"progress-ms", required_argument, nullptr, O_PROGRESS},
		{"help", no_argument, nullptr, 'h'},
		{nullptr, 0, nullptr, 0},
	};
	int opt;
	bool ok = true;

	optind = 1;
	while (ok && (opt = getopt_long(argc, argv, "h", longopts, nullptr)) != -1) {
		switch (opt) {
		case O_ENGINE:
			o->engine = optarg;
			ok = !o->engine.empty();
			break;
		case O_DMA_MODE:
			ok = true;
			if (!strcmp(optarg, "auto"))
				o->dma_mode = RTE_REASM_DMA_AUTO;
			else if (!strcmp(optarg, "sg"))
				o->dma_mode = RTE_REASM_DMA_SG;
			else if (!strcmp(optarg, "copy"))
				o->dma_mode = RTE_REASM_DMA_COPY;
			else if (!strcmp(optarg, "umr"))
				o->dma_mode = RTE_REASM_DMA_UMR;
			else
				ok = false;
			break;
		case O_MODE:
			if (!strcmp(optarg, "reassemble"))
				o->mode = MODE_REASSEMBLE;
			else if (!strcmp(optarg, "linearize"))
				o->mode = MODE_LINEARIZE;
			else if (!strcmp(optarg, "split"))
				o->mode = MODE_SPLIT;
			else
				ok = false;
			break;
		case O_SPLIT:
			ok = parse_split(optarg, &o->split);
			break;
		case O_KEEP:
			o->conf.flags |= RTE_REASM_F_SPLIT_KEEP_HEADERS;
			break;
		case O_TIMEOUT:
			ok = parse_num(optarg, UINT32_MAX, &o->conf.timeout_ms) &&
			     o->conf.timeout_ms;
			break;
		case O_FRAGS:
			ok = parse_num(optarg, 8192, &o->conf.max_frags) && o->conf.max_frags;
			break;
		case O_DGRAMS:
			ok = parse_num(optarg, 1u << 24, &o->conf.max_dgrams) && o->conf.max_dgrams;
			break;
		case O_BYTES:
			ok = parse_num(optarg, UINT64_MAX, &o->conf.max_bytes) && o->conf.max_bytes;
			break;
		case O_INFLIGHT:
			ok = parse_num(optarg, 65536, &o->conf.max_inflight) &&
			     o->conf.max_inflight;
			break;
		case O_TRIM:
			o->conf.flags |= RTE_REASM_F_IPV4_OVERLAP_TRIM;
			break;
		case O_RX:
			ok = parse_num(optarg, UINT16_MAX, &o->rx_port);
			break;
		case O_TX:
			ok = parse_num(optarg, UINT16_MAX, &o->tx_port);
			break;
		case O_IDLE:
			ok = parse_num(optarg, UINT32_MAX, &o->idle_ms);
			break;
		case O_MBUF:
			ok = parse_num(optarg, 65535 - 128, &o->mbuf_size) && o->mbuf_size >= 64;
			break;
		case O_PROGRESS:
			ok = parse_num(optarg, UINT32_MAX, &o->progress_ms);
			break;
		case 'h':
			reasm_app_usage(argv[0]);
			return 1;
		default:
			reasm_app_usage(argv[0]);
			return -EINVAL;
		}
		if (!ok)
			fprintf(stderr, "mlx5-reasm: bad value \"%s\" for --%s\n", optarg,
				longopts[opt - O_ENGINE].name);
	}
	if (!ok)
		return -EINVAL;
	if (optind < argc) {
		fprintf(stderr, "mlx5-reasm: unexpected argument \"%s\"\n", argv[optind]);
		return -EINVAL;
	}
	if (o->mode == MODE_SPLIT && o->split.pay_len == 0) {
		fprintf(stderr, "mlx5-reasm: --mode split needs --split OFF,H,P\n");
		return -EINVAL;
	}
	return 0;
}
