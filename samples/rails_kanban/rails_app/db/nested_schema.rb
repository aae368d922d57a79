# Tables of the nested-reference and client-chosen-id records, apart from the kanban ones.
ActiveRecord::Schema.define(version: 2) do
  create_table :severities do |t|
    t.string :name, null: false, index: { unique: true }
    t.timestamps
  end

  create_table :issues do |t|
    t.references :severity, null: false, foreign_key: true
    t.string :title, null: false
    t.boolean :done, null: false, default: false
    t.timestamps
  end

  create_table :labels do |t|
    t.string :name, null: false, index: { unique: true }
    t.timestamps
  end

  create_table :issue_labels do |t|
    t.references :issue, null: false, foreign_key: true
    t.references :label, null: false, foreign_key: true
    t.index %i[issue_id label_id], unique: true
  end

  create_table :projects do |t|
    t.string :slug, null: false, index: { unique: true }
    t.string :name, null: false
    t.timestamps
  end
end
