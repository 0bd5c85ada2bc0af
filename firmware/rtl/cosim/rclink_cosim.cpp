// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink co-simulation: the Verilated shim core (rclink_cosim_top.v) as a
// process serving one QEMU rclink device (rtl=PATH) over a UNIX socket, in
// the messages of firmware/qemu/rclink/rclink_cosim.h.
//
//   rclink-cosim --socket PATH [--serial HEX] [--mac HEX] [--ip-bridge]
//                [--verbose]
//
// With --ip-bridge the IP side of the shim goes to the QEMU device's model
// of the IP and wire (rtl-bridge=on) instead of the stand-ins: AXI4-Lite
// and MAC CSR requests, TX_S packets and ip_rst_n go out as messages; the
// model's credits, IRQ_INFO records, RX_M packets and levels come back.
// Time stops while an IP register read waits for the model, as for DMA.
//
// It listens on PATH, takes one connection, and runs until the peer goes
// away.  Time is free running: the clock ticks as fast as the simulation
// runs, except that it stops while a DMA read waits for QEMU's answer (the
// host is an infinitely fast memory for the RTL, so no DMA_TIMEOUT of the
// core fires because QEMU was descheduled), and that after IDLE_CYCLES
// cycles without any traffic on the host ports (and no read outstanding)
// it sleeps until the next message.  Not while the core says a timer of
// its runs (timers_run: a WRITE or READ waiting for its response, whose
// DMAQ_RDMA_CFG.timeout_us is far longer than IDLE_CYCLES, a packet held
// on RX_M, a CQ's moderation timer): those need the clock to end, and a
// sleep would make a WRITE that never gets its response wait forever
// instead of completing REM_TIMEOUT.  The core's other timers and the IP
// stand-in's are far shorter than IDLE_CYCLES.
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
// as rclink_tlp_cpl's WR_GAP: the cycles a BAR0 or doorbell write the core
// has taken needs to take effect
constexpr int WR_GAP = 8;
// TYPE2_CRD_RST_NUM (firmware/regs/rclink.yaml): the multicast credit
// level of the IP after reset, until the model says otherwise
constexpr uint16_t T2_CRD_RST_NUM = 2048;

int fd = -1;
bool verbose;
std::vector<uint8_t> inbuf;
std::vector<rclink_cosim_msg> outq;

struct Req {
	bool write;
	bool db;                // a BAR4 (doorbell) write
	uint32_t addr;
	uint8_t be;
	uint64_t data;
};

// BAR0 requests and BAR4 writes not yet taken by the core, in order
std::deque<Req> tgt_q;
uint64_t tgt_in, tgt_out;       // requests queued, taken
std::deque<rclink_cosim_msg> rsp_q;     // DMA answers not yet given
unsigned dma_out;               // DMA_READs sent, not yet answered
unsigned dma_drop;              // answers owed to reads a reset forgot
unsigned mmio_reads;            // MMIO_READs taken, not yet completed
int wr_gap;                     // cycles before the request after a write
uint64_t wr_done;               // the cycle the last write taken is in effect
uint32_t cfg;
int reset_left;

// the bridge (--ip-bridge)
bool bridge;
uint64_t ip_epoch;              // IP_RESETs sent
bool ip_rst_was = true;         // ip_rst_n, last cycle
enum { IPW_NONE, IPW_AXI, IPW_MAC } ip_wait;    // a register read waits
std::deque<rclink_cosim_msg> ip_rsp_q;  // IP_RDATA not yet given
std::deque<rclink_cosim_msg> crd_q;     // IP_CRD, one a cycle
std::deque<rclink_cosim_msg> irq_q;     // IP_IRQ, one a cycle
rclink_cosim_msg levels;                // IP_LEVELS, the last
bool levels_set;
struct RxPkt {
	std::vector<uint8_t> data;
	uint32_t qpid, etype, sa, psn;
	uint64_t after;         // tgt_in when it came: offered once those are taken
};
std::deque<RxPkt> rx_q;         // whole RX_M packets
std::vector<uint8_t> rx_cur;    // RX_DATA of the packet being received
size_t rx_off;                  // bytes of rx_q.front() given to RX_M
const unsigned RX_BEAT = 64;    // RX_M's DW of 512 bits
bool rx_go;                     // rx_q.front() offered: it stays offered
std::vector<uint8_t> tx_cur;    // the TX_S packet being taken
uint32_t tx_qpid, tx_flags;
uint8_t flow_stop = 0xff;

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

bool receive(bool block);

// Send what outq holds.  While the socket is full, take in what QEMU sends
// (it may itself be waiting for room to send to us).
void flush()
{
	std::vector<rclink_cosim_msg> q;

	q.swap(outq);
	const uint8_t *p = reinterpret_cast<const uint8_t *>(q.data());
	size_t left = q.size() * sizeof(rclink_cosim_msg);

	while (left) {
		ssize_t n = send(fd, p, left, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd pfd = { fd, POLLIN | POLLOUT, 0 };

			if (poll(&pfd, 1, -1) > 0 && (pfd.revents & POLLIN))
				receive(false);
			continue;
		}
		if (n <= 0) {
			fprintf(stderr, "rclink-cosim: peer gone (write)\n");
			stats();
			exit(0);
		}
		p += n;
		left -= n;
	}
}


void handle(const rclink_cosim_msg &m)
{
	switch (m.type) {
	case RCLINK_COSIM_MMIO_WRITE:
	case RCLINK_COSIM_MMIO_READ:
		tgt_in++;
		tgt_q.push_back({m.type == RCLINK_COSIM_MMIO_WRITE, false,
				 static_cast<uint32_t>(m.addr & 0xfff8),
				 static_cast<uint8_t>(m.be), m.data});
		break;
	case RCLINK_COSIM_DB_WRITE:
		if (verbose)
			fprintf(stderr, "rclink-cosim: %" PRIu64 ": doorbell 0x%06" PRIx64
				" be 0x%02x 0x%016" PRIx64 "\n", cycle, m.addr, m.be,
				m.data);
		tgt_in++;
		tgt_q.push_back({true, true,
				 static_cast<uint32_t>(m.addr & 0xfffff8),
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
	case RCLINK_COSIM_IP_RDATA:
		// an answer is never stale: the clock stopped while it was owed
		ip_rsp_q.push_back(m);
		break;
	case RCLINK_COSIM_IP_CRD:
		if (m.rsvd == ip_epoch)
			crd_q.push_back(m);
		break;
	case RCLINK_COSIM_IP_IRQ:
		if (m.rsvd == ip_epoch)
			irq_q.push_back(m);
		break;
	case RCLINK_COSIM_IP_LEVELS:
		if (m.rsvd == ip_epoch) {
			levels = m;
			levels_set = true;
		}
		break;
	case RCLINK_COSIM_RX_DATA:
		if (m.rsvd != ip_epoch)
			break;
		for (unsigned i = 0; i < m.be && i < 8; i++)
			rx_cur.push_back(static_cast<uint8_t>(m.data >> (8 * i)));
		break;
	case RCLINK_COSIM_RX_END:
		if (m.rsvd != ip_epoch)
			break;
		if (rx_cur.size() != m.data || rx_cur.empty())
			fprintf(stderr, "rclink-cosim: RX_M packet of %zu bytes, "
				"announced %" PRIu64 ": dropped\n", rx_cur.size(), m.data);
		else if (verbose)
			fprintf(stderr, "rclink-cosim: %" PRIu64 ": RX_M packet qp %"
				PRIu64 " of %zu bytes\n", cycle, m.addr, rx_cur.size());
		if (rx_cur.size() == m.data && !rx_cur.empty())
			rx_q.push_back({rx_cur, static_cast<uint32_t>(m.addr),
					m.be & 3, (m.be >> 2) & 0x3ff,
					(m.be >> 12) & 0xfff, tgt_in});
		rx_cur.clear();
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
		else if (a == "--ip-bridge")
			bridge = true;
		else if (a.rfind("+verilator", 0) == 0)
			continue;
		else {
			fprintf(stderr, "usage: %s --socket PATH [--serial HEX] "
				"[--mac HEX] [--ip-bridge] [--verbose]\n", argv[0]);
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
	top->ip_ext = bridge;
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
		} else if (ip_wait != IPW_NONE && ip_rsp_q.empty()) {
			flush();
			while (ip_rsp_q.empty())
				receive(true);
			busy = true;
		} else if (quiet >= IDLE_CYCLES && tgt_q.empty() && rsp_q.empty() &&
			   crd_q.empty() && irq_q.empty() && !reset_left) {
			flush();
			if (verbose)
				fprintf(stderr, "rclink-cosim: idle at cycle %" PRIu64 "\n",
					cycle);
			if (!rx_q.empty())
				// the shim holds RX_M_RDY low (no RQE, CQ full)
				fprintf(stderr, "rclink-cosim: idle at cycle %" PRIu64
					" with %zu RX_M packets waiting (%zu bytes of "
					"the first taken), FLOW_STOP 0x%x\n", cycle,
					rx_q.size(), rx_off, flow_stop);
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
		// a doorbell write (db_wr, no handshake) is taken in the
		// cycle it is offered, in its place among the BAR0 requests
		bool req_ok = !tgt_q.empty() && !reset_left && !wr_gap &&
			      !top->core_rst;
		bool db_fire = req_ok && tgt_q.front().db;

		top->tgt_req_valid = req_ok && !db_fire;
		top->db_wr = db_fire;
		if (wr_gap)
			wr_gap--;
		if (!tgt_q.empty()) {
			const Req &r = tgt_q.front();

			if (r.db) {
				top->db_addr = r.addr;
				top->db_be = r.be;
				top->db_data = r.data;
			} else {
				top->tgt_req_write = r.write;
				top->tgt_req_addr = r.addr;
				top->tgt_req_be = r.be;
				top->tgt_req_data = r.data;
			}
		}
		top->dma_rsp_valid = !rsp_q.empty() && !reset_left;
		if (!rsp_q.empty()) {
			top->dma_rsp_data = rsp_q.front().data;
			top->dma_rsp_err = rsp_q.front().be & 1;
		}
		bool ip_rsp = false, in_rst = false;

		if (bridge) {
			in_rst = !top->x_ip_rst_n;

			ip_rsp = ip_wait != IPW_NONE && !ip_rsp_q.empty();
			top->x_rvalid = ip_rsp && ip_wait == IPW_AXI;
			top->x_mac_readdatavalid = ip_rsp && ip_wait == IPW_MAC;
			if (ip_rsp) {
				top->x_rdata = ip_rsp_q.front().data;
				top->x_mac_readdata = static_cast<uint32_t>(ip_rsp_q.front().data);
			}
			top->x_crd = 0;
			top->x_crd_qpid_vld = 0;
			if (!crd_q.empty() && !in_rst) {
				top->x_crd = crd_q.front().be & 0xf;
				top->x_crd_qpid = crd_q.front().addr & 0x3ff;
				top->x_crd_qpid_vld = crd_q.front().data & 1;
			}
			top->x_irq_vld = !irq_q.empty() && !in_rst;
			if (!irq_q.empty())
				top->x_irq_info = irq_q.front().data;
			if (levels_set && !in_rst) {
				top->x_rc_intr = levels.be & 0xffff;
				top->x_idle = levels.addr & 3;
				top->x_wait_crd = (levels.addr >> 2) & 1;
				top->x_mac_free = (levels.addr >> 3) & 1;
				top->x_t2_crd = levels.data & 0xffff;
				top->x_carrier = (levels.addr >> 4) & 1;
			} else {
				// the IP's levels after reset
				top->x_rc_intr = 0;
				top->x_idle = 3;
				top->x_wait_crd = 0;
				top->x_mac_free = 1;
				top->x_t2_crd = T2_CRD_RST_NUM;
				top->x_carrier = 1;
			}
			/*
			 * a packet QEMU sent after a doorbell or BAR0 write
			 * waits until the write is in effect in the core (taken,
			 * then WR_GAP cycles): the posted write left the host
			 * first (a buffer posted, or a QP given to a context,
			 * then the peer's message for it: the message is not
			 * refused for want of the buffer nor sent to the
			 * QP's old owner)
			 */
			top->x_rx_vld = !rx_q.empty() && !in_rst &&
					(rx_off || rx_go ||
					 (tgt_out >= rx_q.front().after &&
					  cycle >= wr_done));
			rx_go = top->x_rx_vld;
			if (!rx_q.empty()) {
				const RxPkt &r = rx_q.front();
				uint64_t keep = 0;
				unsigned k = 0;

				/* a beat of RX_BEAT bytes, the first in [511:504] */
				for (unsigned w = 0; w < RX_BEAT / 4; w++)
					top->x_rx_dat[w] = 0;
				for (; k < RX_BEAT && rx_off + k < r.data.size(); k++) {
					unsigned bit = 8 * (RX_BEAT - 1 - k);

					top->x_rx_dat[bit / 32] |=
						static_cast<uint32_t>(r.data[rx_off + k]) << (bit % 32);
					keep |= 1ULL << (RX_BEAT - 1 - k);
				}
				top->x_rx_keep = keep;
				top->x_rx_fs = rx_off == 0;
				top->x_rx_fe = rx_off + RX_BEAT >= r.data.size();
				top->x_rx_qpid = r.qpid & 0x3ff;
				top->x_rx_etype = r.etype;
				top->x_rx_sa = r.sa;
				top->x_rx_psn = r.psn;
				top->x_rx_len = r.data.size() & 0x1fff;
			}
		}
		top->clk = 0;
		top->eval();

		// the bridge's handshakes of this edge
		bool x_aw = false, x_ar = false, x_mw = false, x_mr = false;
		bool x_tx = false, x_txfe = false, x_rx = false, x_rst = false;
		uint64_t x_a = 0, x_d = 0;
		uint8_t x_s = 0, x_fs = 0;

		if (bridge) {
			x_rst = !top->x_ip_rst_n && ip_rst_was;
			ip_rst_was = top->x_ip_rst_n;
			if (top->x_awvalid) {
				x_aw = true;
				x_a = top->x_awaddr;
				x_d = top->x_wdata;
				x_s = top->x_wstrb;
			} else if (top->x_arvalid) {
				x_ar = true;
				x_a = top->x_araddr;
			}
			if (top->x_mac_write) {
				x_mw = true;
				x_a = top->x_mac_address;
				x_d = top->x_mac_writedata;
			} else if (top->x_mac_read) {
				x_mr = true;
				x_a = top->x_mac_address;
			}
			if (top->x_tx_vld) {
				x_tx = true;
				if (top->x_tx_fs) {
					tx_cur.clear();
					tx_qpid = top->x_tx_qpid;
				}
				// 512 bits, the first byte in [511:504]
				for (int i = 63; i >= 0; i--)
					if (top->x_tx_keep & (1ull << i))
						tx_cur.push_back(static_cast<uint8_t>(
							top->x_tx_dat[i / 4] >> (8 * (i % 4))));
				x_txfe = top->x_tx_fe;
				if (x_txfe)
					tx_flags = (top->x_tx_fack & 1) |
						   ((top->x_tx_etype & 3) << 1) |
						   ((top->x_tx_group & 7) << 3);
			}
			x_rx = top->x_rx_vld && top->x_rx_rdy;
			x_fs = top->x_flow_stop;
		}

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

		if (verbose && tgt_fire)
			fprintf(stderr, "rclink-cosim: %" PRIu64 ": %s 0x%05x 0x%016" PRIx64 "\n",
				cycle, tgt_q.front().write ? "write" : "read",
				tgt_q.front().addr, tgt_q.front().data);
		if (verbose && cpl)
			fprintf(stderr, "rclink-cosim: %" PRIu64 ": read answer 0x%016" PRIx64 "\n",
				cycle, cpl_data);
		if (tgt_fire || db_fire) {
			if (!tgt_q.front().write)
				mmio_reads++;
			else if (!db_fire)
				wr_gap = WR_GAP;
			if (tgt_q.front().write)
				wr_done = cycle + WR_GAP;
			tgt_q.pop_front();
			tgt_out++;
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
		if (bridge) {
			if (x_rst) {
				// the IP resets: what the model sent before is stale
				send_msg(RCLINK_COSIM_IP_RESET, 0, 0, 0);
				ip_epoch++;
				crd_q.clear();
				irq_q.clear();
				rx_q.clear();
				rx_cur.clear();
				rx_off = 0;
				rx_go = false;
				levels_set = false;
				busy = true;
			}
			if (ip_rsp) {
				ip_rsp_q.pop_front();
				ip_wait = IPW_NONE;
				busy = true;
			}
			if (x_aw)
				send_msg(RCLINK_COSIM_IP_WRITE, x_s, x_a, x_d);
			if (x_ar) {
				send_msg(RCLINK_COSIM_IP_READ, 0, x_a, 0);
				ip_wait = IPW_AXI;
			}
			if (x_mw)
				send_msg(RCLINK_COSIM_MAC_WRITE, 0, x_a, x_d);
			if (x_mr) {
				send_msg(RCLINK_COSIM_MAC_READ, 0, x_a, 0);
				ip_wait = IPW_MAC;
			}
			if (x_txfe) {
				for (size_t o = 0; o < tx_cur.size(); o += 8) {
					uint64_t d = 0;
					unsigned k = 0;

					for (; k < 8 && o + k < tx_cur.size(); k++)
						d |= static_cast<uint64_t>(tx_cur[o + k]) << (8 * k);
					send_msg(RCLINK_COSIM_TX_DATA, k, 0, d);
				}
				send_msg(RCLINK_COSIM_TX_END, tx_flags, tx_qpid,
					 tx_cur.size());
				tx_cur.clear();
			}
			if (!crd_q.empty() && !in_rst) {
				crd_q.pop_front();
				busy = true;
			}
			if (!irq_q.empty() && !in_rst) {
				irq_q.pop_front();
				busy = true;
			}
			if (x_rx) {
				rx_off += RX_BEAT;
				if (rx_off >= rx_q.front().data.size()) {
					if (verbose)
						fprintf(stderr, "rclink-cosim: %" PRIu64
							": RX_M packet qp %u taken\n",
							cycle, rx_q.front().qpid);
					rx_q.pop_front();
					rx_off = 0;
					rx_go = false;
					send_msg(RCLINK_COSIM_RX_TAKEN, 0, 0, 0);
				}
				busy = true;
			}
			if (x_fs != flow_stop) {
				flow_stop = x_fs;
				send_msg(RCLINK_COSIM_FLOW_STOP, flow_stop, 0, 0);
			}
			busy |= x_aw || x_ar || x_mw || x_mr || x_tx;
		}
		quiet = (busy || top->timers_run) ? 0 : quiet + 1;
		busy_cycles += busy;
		if (!outq.empty())
			flush();
	}
}
