// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink co-simulation: the Verilated shim core (rclink_cosim_top.v) as a
// process serving one QEMU rclink device (rtl=PATH) over a UNIX socket, in
// the messages of firmware/qemu/rclink/rclink_cosim.h.
//
//   rclink-cosim --socket PATH [--serial HEX] [--mac HEX] [--verbose]
//
// It listens on PATH, takes one connection, and runs until the peer goes
// away.  Time is free running: the clock ticks as fast as the simulation
// runs, except that it stops while a DMA read waits for QEMU's answer (the
// host is an infinitely fast memory for the RTL, so no DMA_TIMEOUT of the
// core fires because QEMU was descheduled), and that after IDLE_CYCLES
// cycles without any traffic on the host ports (and no read outstanding)
// it sleeps until the next message: every timer of the core and of the IP
// stand-in is far shorter, so nothing is left to happen.
#include <cerrno>
#include <cinttypes>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <chrono>

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "Vrclink_cosim_top.h"
#include "verilated.h"

#include "rclink_cosim.h"

namespace {

constexpr uint64_t IDLE_CYCLES = 200000;
constexpr int RESET_CYCLES = 8;

int fd = -1;
bool verbose;
std::vector<uint8_t> inbuf;
std::vector<rclink_cosim_msg> outq;

struct Req {
	bool write;
	uint16_t addr;
	uint8_t be;
	uint64_t data;
};

std::deque<Req> tgt_q;          // BAR0 requests not yet taken by the core
std::deque<rclink_cosim_msg> rsp_q;     // DMA answers not yet given
unsigned dma_out;               // DMA_READs sent, not yet answered
unsigned dma_drop;              // answers owed to reads a reset forgot
unsigned mmio_reads;            // MMIO_READs taken, not yet completed
int wr_gap;                     // cycles before the request after a write
uint32_t cfg;
int reset_left;

// statistics, printed when the peer goes
uint64_t cycle, busy_cycles, msgs_in, msgs_out;
std::chrono::steady_clock::time_point t_start;
double waited;                  // seconds spent waiting for QEMU

void stats()
{
	double s = std::chrono::duration<double>(std::chrono::steady_clock::now() -
						 t_start).count();

	fprintf(stderr, "rclink-cosim: %.1f s, %" PRIu64 " cycles (%" PRIu64
		" busy), %.1f s waiting for QEMU, %.0f cycles/s while running, %"
		PRIu64 " messages in, %" PRIu64 " out\n", s, cycle, busy_cycles,
		waited, s > waited ? cycle / (s - waited) : 0.0, msgs_in, msgs_out);
}

void die(const char *what)
{
	fprintf(stderr, "rclink-cosim: %s: %s\n", what, strerror(errno));
	exit(1);
}

void send_msg(uint32_t type, uint32_t be, uint64_t addr, uint64_t data)
{
	rclink_cosim_msg m = {};

	m.type = type;
	m.be = be;
	m.addr = addr;
	m.data = data;
	outq.push_back(m);
	msgs_out++;
}

void flush()
{
	const uint8_t *p = reinterpret_cast<const uint8_t *>(outq.data());
	size_t left = outq.size() * sizeof(rclink_cosim_msg);

	while (left) {
		ssize_t n = write(fd, p, left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "rclink-cosim: peer gone (write)\n");
			stats();
			exit(0);
		}
		p += n;
		left -= n;
	}
	outq.clear();
}

void handle(const rclink_cosim_msg &m)
{
	switch (m.type) {
	case RCLINK_COSIM_MMIO_WRITE:
	case RCLINK_COSIM_MMIO_READ:
		tgt_q.push_back({m.type == RCLINK_COSIM_MMIO_WRITE,
				 static_cast<uint16_t>(m.addr & 0xfff8),
				 static_cast<uint8_t>(m.be), m.data});
		break;
	case RCLINK_COSIM_DMA_RSP:
		if (!dma_out) {
			fprintf(stderr, "rclink-cosim: DMA answer without a read\n");
			break;
		}
		dma_out--;
		if (dma_drop) {
			dma_drop--;
			break;
		}
		rsp_q.push_back(m);
		break;
	case RCLINK_COSIM_CFG:
		cfg = m.be;
		break;
	case RCLINK_COSIM_RESET:
		reset_left = RESET_CYCLES;
		break;
	default:
		fprintf(stderr, "rclink-cosim: unknown message %u\n", m.type);
		break;
	}
}

// Take what the socket holds; with block, wait for at least one message.
// Returns whether a message came.
bool receive(bool block)
{
	bool got = false;
	auto t0 = std::chrono::steady_clock::now();

	for (;;) {
		uint8_t buf[4096];
		ssize_t n = recv(fd, buf, sizeof(buf), block && !got ? 0 : MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			fprintf(stderr, "rclink-cosim: peer gone\n");
			stats();
			exit(0);
		}
		inbuf.insert(inbuf.end(), buf, buf + n);
		size_t off = 0;

		while (inbuf.size() - off >= sizeof(rclink_cosim_msg)) {
			rclink_cosim_msg m;

			memcpy(&m, inbuf.data() + off, sizeof(m));
			off += sizeof(m);
			handle(m);
			msgs_in++;
			got = true;
		}
		inbuf.erase(inbuf.begin(), inbuf.begin() + off);
		if (!got && block)
			continue;
		if (static_cast<size_t>(n) < sizeof(buf))
			break;
	}
	if (block)
		waited += std::chrono::duration<double>(std::chrono::steady_clock::now() -
							t0).count();
	return got;
}

int listen_on(const char *path)
{
	struct sockaddr_un sa = {};
	int s;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "rclink-cosim: socket path too long: %s\n", path);
		exit(1);
	}
	sa.sun_family = AF_UNIX;
	strcpy(sa.sun_path, path);
	unlink(path);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (s < 0)
		die("socket");
	if (bind(s, reinterpret_cast<struct sockaddr *>(&sa), sizeof(sa)) < 0)
		die(path);
	if (listen(s, 1) < 0)
		die("listen");
	return s;
}

} // namespace

int main(int argc, char **argv)
{
	const char *path = nullptr;
	uint64_t serial = 0x5243000000005eedULL;
	uint64_t mac = 0x025243000100ULL;

	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];

		if (a == "--socket" && i + 1 < argc)
			path = argv[++i];
		else if (a == "--serial" && i + 1 < argc)
			serial = strtoull(argv[++i], nullptr, 16);
		else if (a == "--mac" && i + 1 < argc)
			mac = strtoull(argv[++i], nullptr, 16);
		else if (a == "--verbose")
			verbose = true;
		else if (a.rfind("+verilator", 0) == 0)
			continue;
		else {
			fprintf(stderr, "usage: %s --socket PATH [--serial HEX] "
				"[--mac HEX] [--verbose]\n", argv[0]);
			return 2;
		}
	}
	if (!path) {
		fprintf(stderr, "rclink-cosim: --socket is required\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);

	auto ctx = std::make_unique<VerilatedContext>();
	ctx->commandArgs(argc, argv);
	auto top = std::make_unique<Vrclink_cosim_top>(ctx.get());

	int ls = listen_on(path);
	fprintf(stderr, "rclink-cosim: pid %d listening on %s\n",
		static_cast<int>(getpid()), path);
	fd = accept(ls, nullptr, nullptr);
	t_start = std::chrono::steady_clock::now();
	if (fd < 0)
		die("accept");
	close(ls);
	unlink(path);

	top->board_serial = serial;
	top->board_mac = mac & 0xffffffffffffULL;
	top->dma_req_ready = 1;
	top->clk = 0;
	top->rst_n = 0;
	top->eval();
	reset_left = RESET_CYCLES;
	send_msg(RCLINK_COSIM_HELLO, 0, 0, RCLINK_COSIM_MAGIC);
	flush();

	uint64_t quiet = 0;
	bool intx = false;

	for (;;) {
		bool busy = false;

		// what QEMU sent: now and then, or waiting when time must stop
		if (dma_out > dma_drop && rsp_q.empty()) {
			flush();
			while (rsp_q.empty() && dma_out > dma_drop)
				receive(true);
			busy = true;
		} else if (quiet >= IDLE_CYCLES && tgt_q.empty() && rsp_q.empty() &&
			   !reset_left) {
			flush();
			if (verbose)
				fprintf(stderr, "rclink-cosim: idle at cycle %" PRIu64 "\n",
					cycle);
			receive(true);
			busy = true;
		} else if ((cycle & 15) == 0 && receive(false)) {
			busy = true;
		}

		// inputs of this cycle
		top->rst_n = reset_left ? 0 : 1;
		top->cfg_bus_master_en = !!(cfg & RCLINK_COSIM_CFG_BME);
		top->cfg_msix_en = !!(cfg & RCLINK_COSIM_CFG_MSIX);
		top->cfg_msi_en = !!(cfg & RCLINK_COSIM_CFG_MSI);
		// as rclink_tlp_cpl's WR_GAP: a write takes effect (SHIM_RESET
		// resets the core a few cycles later) before the next request
		// (and no request reaches a core in reset: it would be lost)
		top->tgt_req_valid = !tgt_q.empty() && !reset_left && !wr_gap &&
				     !top->core_rst;
		if (wr_gap)
			wr_gap--;
		if (!tgt_q.empty()) {
			const Req &r = tgt_q.front();

			top->tgt_req_write = r.write;
			top->tgt_req_addr = r.addr;
			top->tgt_req_be = r.be;
			top->tgt_req_data = r.data;
		}
		top->dma_rsp_valid = !rsp_q.empty() && !reset_left;
		if (!rsp_q.empty()) {
			top->dma_rsp_data = rsp_q.front().data;
			top->dma_rsp_err = rsp_q.front().be & 1;
		}
		top->clk = 0;
		top->eval();

		// the handshakes of this edge
		bool tgt_fire = top->tgt_req_valid && top->tgt_req_ready;
		bool rsp_fire = top->dma_rsp_valid;
		bool cpl = top->tgt_cpl_valid;
		uint64_t cpl_data = top->tgt_cpl_data;
		bool dma = top->dma_req_valid && top->dma_req_ready && !reset_left;
		bool dma_w = top->dma_req_write;
		uint64_t dma_a = top->dma_req_addr, dma_d = top->dma_req_data;
		uint8_t dma_be = top->dma_req_be;
		bool msix = top->msix_valid && !reset_left;
		uint16_t vec = top->msix_vector;
		bool msi = top->msi_valid && !reset_left;

		top->clk = 1;
		top->eval();
		cycle++;

		if (verbose && (tgt_fire || cpl))
			fprintf(stderr, "rclink-cosim: %" PRIu64 ": req %d cpl %d 0x%016" PRIx64 "\n",
				cycle, tgt_fire, cpl, cpl_data);
		if (tgt_fire) {
			if (!tgt_q.front().write)
				mmio_reads++;
			else
				wr_gap = 8;
			tgt_q.pop_front();
			busy = true;
		}
		if (rsp_fire) {
			rsp_q.pop_front();
			busy = true;
		}
		if (cpl) {
			if (mmio_reads) {
				mmio_reads--;
				send_msg(RCLINK_COSIM_MMIO_CPL, 0, 0, cpl_data);
			} else {
				fprintf(stderr, "rclink-cosim: completion without a read\n");
			}
			busy = true;
		}
		if (dma) {
			if (dma_w) {
				send_msg(RCLINK_COSIM_DMA_WRITE, dma_be, dma_a, dma_d);
			} else {
				send_msg(RCLINK_COSIM_DMA_READ, dma_be, dma_a, 0);
				dma_out++;
			}
			busy = true;
		}
		if (msix) {
			send_msg(RCLINK_COSIM_MSIX, vec, 0, 0);
			busy = true;
		}
		if (msi) {
			send_msg(RCLINK_COSIM_MSI, 0, 0, 0);
			busy = true;
		}
		if (!!top->intx != intx) {
			intx = top->intx;
			send_msg(RCLINK_COSIM_INTX, intx, 0, 0);
			busy = true;
		}
		if (reset_left || top->core_rst) {
			// the reads a reset (rst_n or SHIM_RESET) forgot are
			// answered by QEMU all the same: drop those answers
			if (reset_left)
				reset_left--;
			dma_drop = dma_out;
			rsp_q.clear();
			if (mmio_reads) {
				// a read the reset swallowed: answer all ones
				for (; mmio_reads; mmio_reads--)
					send_msg(RCLINK_COSIM_MMIO_CPL, 0, 0, ~0ULL);
			}
			busy = true;
		}
		quiet = busy ? 0 : quiet + 1;
		busy_cycles += busy;
		if (!outq.empty())
			flush();
	}
}
