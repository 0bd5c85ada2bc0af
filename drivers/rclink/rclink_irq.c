// SPDX-License-Identifier: GPL-2.0
/*
 * rclink: interrupt vectors.  MSI-X with up to SHIM_CAP3.num_vectors vectors,
 * else one MSI, else INTx (shared).  Vector 0 carries the event ring,
 * vector 1 the TYPE1 completion queue, vector 2 the TYPE3 netdev's NAPI
 * (SHIM_T3_IRQ, while the interface is up); the others are reserved and
 * only see the self-test.  With one vector (MSI, INTx, a single MSI-X
 * vector) the event ring's handler serves the completion queue as well, and
 * without vector 2 TYPE3 interrupts come as event records.
 */

#include <linux/interrupt.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include "rclink.h"
#include "rclink_compat.h"

const char *rclink_irq_mode_name(enum rclink_irq_mode mode)
{
	switch (mode) {
	case RCLINK_IRQ_MSIX:
		return "msix";
	case RCLINK_IRQ_MSI:
		return "msi";
	case RCLINK_IRQ_INTX:
		return "intx";
	default:
		return "none";
	}
}

int rclink_irq_alloc_vectors(struct rclink_dev *rdev)
{
	unsigned int max = max(rdev->params.num_vectors, 1U);
	struct pci_dev *pdev = rdev->pdev;
	int nvec;

	nvec = pci_alloc_irq_vectors(pdev, 1, max, PCI_IRQ_MSIX);
	if (nvec > 0) {
		rdev->irq_mode = RCLINK_IRQ_MSIX;
		goto done;
	}
	nvec = pci_alloc_irq_vectors(pdev, 1, 1, PCI_IRQ_MSI);
	if (nvec > 0) {
		rdev->irq_mode = RCLINK_IRQ_MSI;
		goto done;
	}
	nvec = pci_alloc_irq_vectors(pdev, 1, 1, RCLINK_PCI_IRQ_INTX);
	if (nvec > 0) {
		rdev->irq_mode = RCLINK_IRQ_INTX;
		goto done;
	}
	dev_err(rdev->dev, "no interrupt: MSI-X, MSI and INTx all failed: %d\n",
		nvec);
	return nvec ? nvec : -ENODEV;

done:
	rdev->vecs = kcalloc(nvec, sizeof(*rdev->vecs), GFP_KERNEL);
	if (!rdev->vecs) {
		pci_free_irq_vectors(pdev);
		rdev->irq_mode = RCLINK_IRQ_NONE;
		return -ENOMEM;
	}
	rdev->num_vecs = nvec;
	if (rdev->irq_mode == RCLINK_IRQ_MSIX && nvec < max)
		dev_info(rdev->dev, "MSI-X: %d of %u vectors\n", nvec, max);
	return 0;
}

void rclink_irq_free_vectors(struct rclink_dev *rdev)
{
	if (rdev->irq_mode == RCLINK_IRQ_NONE)
		return;
	kfree(rdev->vecs);
	rdev->vecs = NULL;
	rdev->num_vecs = 0;
	pci_free_irq_vectors(rdev->pdev);
	rdev->irq_mode = RCLINK_IRQ_NONE;
}

/* Vector 0: the event ring (and, under MSI-X, its own self-test) */
static irqreturn_t rclink_evt_irq(int irq, void *data)
{
	struct rclink_vec *vec = data;
	struct rclink_dev *rdev = vec->rdev;

	/* INTx may be shared: claim it only when the ring or the CQ has work */
	if (rdev->irq_mode == RCLINK_IRQ_INTX && !rclink_evt_pending(rdev) &&
	    !rdev->evt_ops->cq_pending(rdev))
		return IRQ_NONE;

	rclink_cnt_inc(rdev, RCLINK_CNT_IRQ_TOTAL);
	if (rdev->irq_mode == RCLINK_IRQ_MSIX &&
	    rdev->evt_ops->selftest_irq(rdev, RCLINK_VEC_EVT))
		rclink_cnt_inc(rdev, RCLINK_CNT_SELFTEST_IRQ);
	/*
	 * MSI-X, the CQ on a vector of its own: the contexts' CQ events are
	 * handled here, the thread runs only for the other records
	 */
	if (rdev->irq_mode == RCLINK_IRQ_MSIX && !rclink_irq_cq_shared(rdev) &&
	    !rclink_evt_fast(rdev))
		return IRQ_HANDLED;
	return IRQ_WAKE_THREAD;
}

static irqreturn_t rclink_evt_thread(int irq, void *data)
{
	struct rclink_vec *vec = data;

	rclink_evt_drain(vec->rdev);
	if (rclink_irq_cq_shared(vec->rdev))
		vec->rdev->evt_ops->cq_irq(vec->rdev);
	return IRQ_HANDLED;
}

/* Whether the TYPE1 CQ shares vector 0 (it has no vector of its own) */
bool rclink_irq_cq_shared(struct rclink_dev *rdev)
{
	return rdev->irq_mode != RCLINK_IRQ_MSIX ||
	       rdev->num_vecs <= RCLINK_VEC_CQ;
}

/* Vector 1 (MSI-X): the TYPE1 completion queue, and its self-test */
static irqreturn_t rclink_cq_irq(int irq, void *data)
{
	struct rclink_vec *vec = data;
	struct rclink_dev *rdev = vec->rdev;

	rclink_cnt_inc(rdev, RCLINK_CNT_IRQ_TOTAL);
	if (rdev->evt_ops->selftest_irq(rdev, vec->idx))
		rclink_cnt_inc(rdev, RCLINK_CNT_SELFTEST_IRQ);
	return IRQ_WAKE_THREAD;
}

/* Process context: the CQ handler allocates and takes mutexes */
static irqreturn_t rclink_cq_thread(int irq, void *data)
{
	struct rclink_vec *vec = data;

	vec->rdev->evt_ops->cq_irq(vec->rdev);
	return IRQ_HANDLED;
}

/* Whether TYPE3 may have vector 2 (MSI-X with at least three vectors) */
bool rclink_irq_t3_own(struct rclink_dev *rdev)
{
	return rdev->irq_mode == RCLINK_IRQ_MSIX &&
	       rdev->num_vecs > RCLINK_VEC_T3 &&
	       rdev->vecs[RCLINK_VEC_T3].requested;
}

/* Vector 2 (MSI-X): TYPE3, straight to NAPI; and its self-test */
static irqreturn_t rclink_t3_irq(int irq, void *data)
{
	struct rclink_vec *vec = data;
	struct rclink_dev *rdev = vec->rdev;

	rclink_cnt_inc(rdev, RCLINK_CNT_IRQ_TOTAL);
	if (rdev->evt_ops->selftest_irq(rdev, vec->idx))
		rclink_cnt_inc(rdev, RCLINK_CNT_SELFTEST_IRQ);
	/* a self-test interrupt only costs NAPI a look at DMA_INTR_ST0 */
	rdev->evt_ops->t3_irq(rdev);
	return IRQ_HANDLED;
}

/* Vectors 3..: reserved (MSI-X only) */
static irqreturn_t rclink_queue_irq(int irq, void *data)
{
	struct rclink_vec *vec = data;
	struct rclink_dev *rdev = vec->rdev;

	rclink_cnt_inc(rdev, RCLINK_CNT_IRQ_TOTAL);
	if (rdev->evt_ops->selftest_irq(rdev, vec->idx))
		rclink_cnt_inc(rdev, RCLINK_CNT_SELFTEST_IRQ);
	return IRQ_HANDLED;
}

int rclink_irq_request(struct rclink_dev *rdev)
{
	const char *pci = pci_name(rdev->pdev);
	struct rclink_vec *vec;
	unsigned long flags;
	unsigned int i;
	int err;

	for (i = 0; i < rdev->num_vecs; i++) {
		vec = &rdev->vecs[i];
		vec->rdev = rdev;
		vec->idx = i;
		vec->irq = pci_irq_vector(rdev->pdev, i);
		if (vec->irq < 0) {
			err = vec->irq;
			goto err_free;
		}

		if (i == RCLINK_VEC_EVT) {
			snprintf(vec->name, sizeof(vec->name), "%s-%s-evt",
				 KBUILD_MODNAME, pci);
			/*
			 * Oneshot keeps a level INTx masked until the thread
			 * has written SHIM_EVT_CONS and the line dropped.
			 */
			flags = IRQF_ONESHOT;
			if (rdev->irq_mode == RCLINK_IRQ_INTX)
				flags |= IRQF_SHARED;
			err = request_threaded_irq(vec->irq, rclink_evt_irq,
						   rclink_evt_thread, flags,
						   vec->name, vec);
		} else if (i == RCLINK_VEC_CQ) {
			snprintf(vec->name, sizeof(vec->name), "%s-%s-cq",
				 KBUILD_MODNAME, pci);
			/* MSI-X: raised while the thread runs, it reruns */
			err = request_threaded_irq(vec->irq, rclink_cq_irq,
						   rclink_cq_thread, 0,
						   vec->name, vec);
		} else if (i == RCLINK_VEC_T3) {
			snprintf(vec->name, sizeof(vec->name), "%s-%s-t3",
				 KBUILD_MODNAME, pci);
			err = request_irq(vec->irq, rclink_t3_irq, 0,
					  vec->name, vec);
		} else {
			snprintf(vec->name, sizeof(vec->name), "%s-%s-q%u",
				 KBUILD_MODNAME, pci, i);
			err = request_irq(vec->irq, rclink_queue_irq, 0,
					  vec->name, vec);
		}
		if (err)
			goto err_free;
		vec->requested = true;
	}
	return 0;

err_free:
	dev_err(rdev->dev, "cannot request interrupt %u (%s): %d\n", i,
		rclink_irq_mode_name(rdev->irq_mode), err);
	rclink_irq_free(rdev);
	return err;
}

/* Wait until no handler (hard or threaded) of the board runs any more */
void rclink_irq_sync(struct rclink_dev *rdev)
{
	unsigned int i;

	for (i = 0; i < rdev->num_vecs; i++)
		if (rdev->vecs[i].requested)
			synchronize_irq(rdev->vecs[i].irq);
}

void rclink_irq_free(struct rclink_dev *rdev)
{
	struct rclink_vec *vec;
	unsigned int i;

	for (i = 0; i < rdev->num_vecs; i++) {
		vec = &rdev->vecs[i];
		if (!vec->requested)
			continue;
		free_irq(vec->irq, vec);
		vec->requested = false;
	}
}
