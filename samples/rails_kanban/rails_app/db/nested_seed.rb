# Seeds the nested-reference and client-chosen-id tables (fixed data, the same for every
# seed): four severities, three labels, eight issues pointing at them, three projects by slug.
at = Time.utc(2026, 7, 30)
ActiveRecord::Base.transaction do
  severities = %w[low normal high critical].map do |name|
    Severity.create!(name: name, created_at: at, updated_at: at)
  end
  labels = %w[bug ui backend].map { |name| Label.create!(name: name, created_at: at, updated_at: at) }
  [
    ["Login page times out", 2], ["Typo on the pricing page", 0], ["Export drops rows", 3],
    ["Slow search", 1], ["Crash on empty upload", 3], ["Dark mode contrast", 0],
    ["Wrong totals in report", 2], ["Session not renewed", 1]
  ].each_with_index do |(title, severity), n|
    Issue.create!(title: title, severity: severities[severity], done: n.even?,
                  labels: labels.select.with_index { |_, i| (n + i) % 3 != 0 },
                  created_at: at, updated_at: at)
  end
  [%w[apollo Apollo], %w[gemini Gemini], %w[mercury-7 Mercury\ Seven]].each do |slug, name|
    Project.create!(slug: slug, name: name, created_at: at, updated_at: at)
  end
end
