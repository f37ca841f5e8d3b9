"""A live checkpoint interval: the interval recomputed from a run's own save times and
failures (:class:`IntervalAdvisor`, ``relplan advise``).

Framework-neutral: nothing here imports a training framework; a Lightning or Hugging
Face callback calls :meth:`IntervalAdvisor.on_save`, :meth:`~IntervalAdvisor.on_failure`
and :meth:`~IntervalAdvisor.interval_steps` (see the how-to "A live checkpoint
interval").
"""

from relplan.advice.interval_advisor import Advice, IntervalAdvisor, read_save_seconds

__all__ = ["Advice", "IntervalAdvisor", "read_save_seconds"]
