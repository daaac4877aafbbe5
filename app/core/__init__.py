"""The read core, the same for every face: planning a read (plan), running it (reads), the
feed (feed, its bookmark and token in bookmarks), the plant's clock (clock), summaries
(summaries), the collections not mapped yet (unmapped), a mapping the database refuses
(mapped), the fields a site maps to NULL (absent), the proof of a mapping on its own records
(proof) and its verdicts kept for every process (verdicts); what the factory builds, for every
part to read (services), and the filter table as the faces read it (filtering). It may
import app/model/, app/ops/, app/database/ and app/formats/, and nothing of the web
framework (tests/test_layers.py reads it from the source).
"""
