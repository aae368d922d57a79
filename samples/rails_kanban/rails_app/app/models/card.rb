class Card < ApplicationRecord
  PRIORITIES = %w[none low medium high urgent].freeze

  belongs_to :list
  has_many :card_tags, dependent: :destroy
  has_many :tags, through: :card_tags

  validates :title, presence: true, length: { maximum: 200 }
  validates :priority, inclusion: { in: PRIORITIES }

  def as_json(options = nil)
    super({ methods: :tag_ids }.merge(options || {}))
  end
end
